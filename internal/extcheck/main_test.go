package extcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// sudocodeBin is the binary under test, built once by TestMain.
var sudocodeBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bins, err := testkit.Build("./cmd/sudocode")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sudocodeBin = bins[0]
	return testkit.Run(m)
}

// serverEnv is the test process's environment without the settings the
// servers read (SUDOCODE_*, VALKEY_*, CODING_TOOLS_MCP_*, XDG_DATA_HOME,
// XDG_STATE_HOME where task worktrees go),
// with HOME and the data dir in home, so that no server touches the user's
// files or a configured Valkey.
func serverEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SUDOCODE_"), strings.HasPrefix(k, "VALKEY_"), strings.HasPrefix(k, "CODING_TOOLS_MCP_"),
			k == "XDG_DATA_HOME", k == "XDG_CACHE_HOME", k == "XDG_STATE_HOME", k == "HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
}

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

// urlWatcher keeps a process's stderr and sends the first URL it logs.
type urlWatcher struct {
	testkit.LockedBuffer
	found chan string
	sent  bool
}

func (w *urlWatcher) Write(p []byte) (int, error) {
	n, err := w.LockedBuffer.Write(p)
	if !w.sent {
		if m := urlRE.FindStringSubmatch(w.LockedBuffer.String()); m != nil {
			w.found <- m[1]
			w.sent = true
		}
	}
	return n, err
}

// startHTTP runs sudocode with args (which make it serve Streamable HTTP on
// a free loopback port) in dir, and returns the URL it logs. The server is
// stopped when the test ends.
func startHTTP(t *testing.T, dir, home string, args ...string) string {
	t.Helper()
	cmd := exec.Command(sudocodeBin, args...)
	cmd.Dir = dir
	cmd.Env = serverEnv(home)
	logs := &urlWatcher{found: make(chan string, 1)}
	cmd.Stderr = logs
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sudocode %s: %v", strings.Join(args, " "), err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(testkit.Scale(10 * time.Second)):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("sudocode %s stderr:\n%s", strings.Join(args, " "), logs.String())
		}
	})
	select {
	case u := <-logs.found:
		return u
	case <-exited:
		t.Fatalf("sudocode %s exited without logging its URL:\n%s", strings.Join(args, " "), logs.String())
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatalf("sudocode %s logged no URL in %v:\n%s", strings.Join(args, " "), testkit.Scale(30*time.Second), logs.String())
	}
	return ""
}

// writeFile writes content to dir/rel, creating its directories.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
