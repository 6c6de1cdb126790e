package procs

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// A descriptor the server inherited without close-on-exec (from an
// editor, a shell) does not reach a command.
func TestCommandGetsOnlyItsStdio(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd) // dup'd without close-on-exec
	m := newManager(t, Options{})
	s := start(t, m, req("exec ls /proc/self/fd/"))
	got := strings.Fields(s.Stdout.Text)
	// 0, 1, 2, and the directory ls is reading.
	if len(got) != 4 || s.ExitCode != 0 {
		t.Fatalf("descriptors %v: %+v", got, s)
	}
}
