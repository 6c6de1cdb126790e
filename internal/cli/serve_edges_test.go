package cli_test

import (
	"net"
	"os/exec"
	"strings"
	"testing"
)

// A port in use is said once, as a usage error (exit 2) with a hint, on
// serve and on every server's --http; a --dir that does not exist is
// refused before anything starts.
func TestServeRefusesBadAddrAndDir(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	for _, args := range [][]string{
		{"serve", "--addr", busy, "--dir", t.TempDir(), "--store", t.TempDir()},
		{"mcp", "rulesets", "--http", busy, "--store", t.TempDir()},
		{"mcp", "coding", "--workspace", t.TempDir(), "--port", busy[strings.LastIndexByte(busy, ':')+1:]},
	} {
		cmd := exec.Command(sudocodeBin, args...)
		cmd.Env = childEnv(t)
		out, err := cmd.CombinedOutput()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != 2 || strings.Count(string(out), "already in use") != 1 || !strings.Contains(string(out), "127.0.0.1:0") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command(sudocodeBin, "serve", "--addr", "127.0.0.1:0", "--dir", "/nonexistent/project")
	cmd.Env = childEnv(t)
	out, err := cmd.CombinedOutput()
	if ee, _ := err.(*exec.ExitError); ee == nil || ee.ExitCode() != 2 || !strings.Contains(string(out), "/nonexistent/project: no such directory") {
		t.Errorf("serve --dir /nonexistent/project: %v\n%s", err, out)
	}
}
