//go:build linux

package sandbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A command whose policy has a Finish, running when the server dies,
// ends by itself (a git writing a repository is not cut off half-way);
// without one it is ended at once. Both through a cold helper and a warm
// box (as git runs).
func TestFinishOutlivesTheServer(t *testing.T) {
	for _, warm := range []bool{false, true} {
		for _, finish := range []time.Duration{time.Minute, 0} {
			t.Run(fmt.Sprintf("warm=%v/finish=%v", warm, finish), func(t *testing.T) {
				dir := t.TempDir()
				mk := fmt.Sprintf("finish-%d", rand.IntN(1e9)) // in the command's line, to find it
				// A child process plays the server: it starts the command
				// and is killed once the command has started.
				srv := exec.Command(os.Args[0], "-test.run=^TestHelperFinishServer$")
				srv.Env = append(os.Environ(), "SANDBOX_FINISH_DIR="+dir, "SANDBOX_FINISH_MARK="+mk,
					fmt.Sprintf("SANDBOX_FINISH_WARM=%v", warm), "SANDBOX_FINISH="+finish.String())
				out, err := srv.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := srv.Start(); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 256)
				n, _ := out.Read(buf)
				switch said := string(buf[:n]); {
				case strings.HasPrefix(said, "no box"):
					srv.Process.Kill()
					srv.Wait()
					testkit.Missing(t, "the sealed box: %s", said)
				case !strings.HasPrefix(said, "ready"):
					srv.Process.Kill()
					srv.Wait()
					t.Fatalf("the server said %q", said)
				}
				srv.Process.Kill()
				srv.Wait()
				done := filepath.Join(dir, "done")
				if finish == 0 {
					// Ended with the server: gone before it is let go.
					waitCount(t, mk, func(n int) bool { return n == 0 })
				}
				// The command finishes once let go, if it is still there.
				if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if finish > 0 {
					if !testkit.Eventually(30*time.Second, func() bool { _, err := os.Stat(done); return err == nil }) {
						t.Fatal("the command did not finish after the server died")
					}
				}
				// Then nothing of it is left; without Finish, it ended
				// before it could write done.
				waitCount(t, mk, func(n int) bool { return n == 0 })
				if _, err := os.Stat(done); finish == 0 && err == nil {
					t.Fatal("the command finished after the server died, with no Finish")
				}
			})
		}
	}
}

// TestHelperFinishServer is the server of TestFinishOutlivesTheServer.
func TestHelperFinishServer(t *testing.T) {
	dir := os.Getenv("SANDBOX_FINISH_DIR")
	if dir == "" {
		return
	}
	finish, _ := time.ParseDuration(os.Getenv("SANDBOX_FINISH"))
	c := exec.Command("/bin/sh", "-c", "touch started; while [ ! -e go ]; do sleep 0.02; done; touch done # "+os.Getenv("SANDBOX_FINISH_MARK"))
	c.Dir = dir
	c.Env = []string{"PATH=/usr/bin:/bin"}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	p := Policy{Finish: finish}
	var w *Warm
	if os.Getenv("SANDBOX_FINISH_WARM") == "true" {
		p = warmPolicy(dir)
		p.Finish = finish
		w = NewWarm()
	}
	sc := Command(c, p)
	sc.Warm = w
	if err := sc.Start(); err != nil {
		fmt.Println("start:", err)
		return
	}
	if w != nil && sc.Report().Box != "sealed" {
		fmt.Println("no box:", sc.Report().BoxReason)
		return
	}
	if !testkit.Eventually(time.Minute, func() bool { _, err := os.Stat(filepath.Join(dir, "started")); return err == nil }) {
		fmt.Println("the command did not start")
		return
	}
	fmt.Println("ready")
	select {} // alive, holding its command, until the test kills it
}
