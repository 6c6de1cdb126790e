package procs

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// The sandbox is the kernel's, not the text policy's: these commands go
// straight to the Manager (no policy check), as a command the policy let
// through would, and each tries one way out.

// requireLandlock stops the test (testkit.Missing) where the kernel lacks
// the ABI it needs.
func requireLandlock(t *testing.T, abi int) {
	t.Helper()
	if got := landlockABI(); got < abi {
		testkit.Missing(t, "Landlock ABI %d, the test needs %d (a newer Linux kernel with landlock among its LSMs)", got, abi)
	}
}

// listener accepts TCP connections on loopback and counts them.
func listener(t *testing.T) (port string, accepted func() int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	n := make(chan struct{}, 100)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n <- struct{}{}
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, func() int { return len(n) }
}

func TestSandboxDeniesNetworkByEveryRoute(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 4)
	testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
	port, accepted := listener(t)
	m := newManager(t, Options{})
	root := m.opts.Root
	py := fmt.Sprintf("import socket\ns=socket.socket()\ns.connect(('127.0.0.1', %s))\nprint('connected')\n", port)
	mptcp := fmt.Sprintf("import socket\ns=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\ns.connect(('127.0.0.1', %s))\nprint('connected')\n", port)
	os.WriteFile(filepath.Join(root, "net.py"), []byte(py), 0o644)
	os.WriteFile(filepath.Join(root, "mptcp.py"), []byte(mptcp), 0o644)
	os.WriteFile(filepath.Join(root, "script.sh"), []byte("python3 net.py\n"), 0o755)
	os.WriteFile(filepath.Join(root, "Makefile"), []byte("all:\n\tpython3 net.py\n"), 0o644)
	os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"scripts":{"test":"python3 net.py"}}`), 0o644)
	bash := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%s && echo connected", port)
	routes := map[string]Request{
		"python":        req("python3 net.py"),
		"mptcp":         req("python3 mptcp.py"),
		"split name":    req("a=pyth; b=on3; $a$b net.py"),
		"awk system":    req(`awk 'BEGIN{system("python3 net.py")}'`),
		"sh script":     req("sh script.sh"),
		"make":          req("make -s"),
		"bash /dev/tcp": req("bash -c '" + bash + "'"),
		"stdin to sh":   req("sh", func(r *Request) { r.Stdin = "python3 net.py\n" }),
		"node":          req(fmt.Sprintf(`node -e "require('net').connect(%s,'127.0.0.1',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.error(e.code);process.exit(1)})"`, port)),
	}
	routes["npm test"] = req("npm test --silent")
	for name, r := range routes {
		t.Run(name, func(t *testing.T) {
			if name == "npm test" {
				testkit.Command(t, "npm", "apt-get install -y npm")
			}
			s := start(t, m, r)
			if strings.Contains(s.Stdout.Text, "connected") {
				t.Fatalf("%s reached the network: %q %q", name, s.Stdout.Text, s.Stderr.Text)
			}
		})
	}
	// A tty shell fed through write_stdin, as an agent would.
	s := start(t, m, req("sh", tty, yield(200*time.Millisecond)))
	w, err := m.Write(context.Background(), s.SessionID, "python3 net.py; echo done-$((1+1))\n", 5*time.Second, 65536)
	if err != nil {
		t.Fatal(err)
	}
	if !poll(testkit.Scale(5*time.Second), func() bool {
		if strings.Contains(w.Stdout.Text, "done-2") {
			return true
		}
		w, _ = m.Write(context.Background(), s.SessionID, "", 200*time.Millisecond, 65536)
		return false
	}) {
		t.Fatalf("tty output %q", w.Stdout.Text)
	}
	if strings.Contains(w.Stdout.Text, "connected") {
		t.Fatalf("the tty shell reached the network: %q", w.Stdout.Text)
	}
	if n := accepted(); n != 0 {
		t.Fatalf("the listener accepted %d connections", n)
	}

	// --allow-network lets the same command through.
	open := newManager(t, Options{Network: true})
	os.WriteFile(filepath.Join(open.opts.Root, "net.py"), []byte(py), 0o644)
	if s := start(t, open, req("python3 net.py")); !strings.Contains(s.Stdout.Text, "connected") {
		t.Fatalf("with network allowed: %+v", s)
	}
}

func TestSandboxEndsEveryDescendant(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	escapes := map[string]string{
		"setsid":      "setsid sleep %s &",
		"double fork": "( (sleep %s &) & )",
		"nohup":       "nohup sleep %s >/dev/null 2>&1 &",
		"setsid -f":   "setsid -f sleep %s",
		"disown":      "sleep %s & disown 2>/dev/null; true",
	}
	ends := map[string]func(t *testing.T, s *Snapshot){
		// The shell exits: what it left goes with it.
		"exit": func(t *testing.T, s *Snapshot) {},
		"kill_session": func(t *testing.T, s *Snapshot) {
			if _, err := m.Kill(context.Background(), s.SessionID, syscall.SIGTERM, 3*time.Second, 100); err != nil {
				t.Fatal(err)
			}
		},
		"timeout": func(t *testing.T, s *Snapshot) {},
	}
	for ename, esc := range escapes {
		for how, end := range ends {
			t.Run(ename+"/"+how, func(t *testing.T) {
				t.Parallel()
				mk := marker()
				cmd := fmt.Sprintf(esc, mk) + "\necho started"
				r := req(cmd)
				switch how {
				case "kill_session":
					r = req(cmd+"\nsleep 300", yield(0))
				case "timeout":
					r = req(cmd+"\nsleep 300", timeout(time.Second))
				}
				s := start(t, m, r)
				switch how {
				case "kill_session": // running: read on until it has started, unless the start's own output says so already
					if !strings.Contains(s.Stdout.Text, "started") {
						exchange(t, m, s.SessionID, "", "started")
					}
				case "exit":
					if !strings.Contains(s.Stdout.Text, "started") {
						t.Fatalf("%+v", s)
					}
				}
				end(t, s)
				waitGone(t, mk, 5*time.Second)
			})
		}
	}
}

func TestSandboxEndsEverythingWhenTheServerDies(t *testing.T) {
	t.Parallel()
	mk := marker()
	// A child process plays the server: it starts a command that
	// escapes with setsid, and is then killed with SIGKILL.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	cmd.Env = append(os.Environ(), "PROCS_TEST_SERVER_MARKER="+mk, "PROCS_TEST_SERVER_ROOT="+t.TempDir(), "PROCS_TEST_SERVER_STATE="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		t.Fatalf("server said %q", buf[:n])
	}
	waitRunning(t, mk, 2)
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, mk, 5*time.Second)
}

// TestHelperServer is the server of TestSandboxEndsEverythingWhenTheServerDies.
func TestHelperServer(t *testing.T) {
	mk := os.Getenv("PROCS_TEST_SERVER_MARKER")
	if mk == "" {
		return
	}
	m := New(Options{Root: os.Getenv("PROCS_TEST_SERVER_ROOT"), StateDir: os.Getenv("PROCS_TEST_SERVER_STATE")})
	start(t, m, req("setsid sleep "+mk+" & sleep "+mk, yield(100*time.Millisecond)))
	fmt.Println("ready")
	select {} // alive, holding its processes, until the test kills it
}

func TestSandboxScopesSignalsAndAbstractSockets(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 6)
	// A process outside the sandbox the command knows the pid of.
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	// An abstract unix socket outside the sandbox.
	name := "@sudocode-test-" + marker()
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	m := newManager(t, Options{})
	s := start(t, m, req(fmt.Sprintf("kill -TERM %d; echo kill=$?", victim.Process.Pid)))
	if !strings.Contains(s.Stdout.Text, "kill=1") {
		t.Fatalf("%+v", s)
	}
	os.WriteFile(filepath.Join(m.opts.Root, "abs.py"), []byte(fmt.Sprintf(
		"import socket\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect('\\0%s')\n  print('connected')\nexcept OSError as e:\n  print('refused', e)\n", name[1:])), 0o644)
	s = start(t, m, req("python3 abs.py"))
	if !strings.Contains(s.Stdout.Text, "refused") {
		t.Fatalf("%+v", s)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the victim died: %v", err)
	}
	// Inside the sandbox signals still work.
	s = start(t, m, req("sleep 30 & kill $!; wait $!; echo status=$?"))
	if !strings.Contains(s.Stdout.Text, "status=143") {
		t.Fatalf("%+v", s)
	}
}

// The command's own /proc/self and /dev/fd stay readable (the rules are
// made by the process that becomes the command, which keeps its pid), and
// bash's process substitution works.
func TestSandboxLeavesTheCommandItsOwnProc(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	m := newManager(t, Options{})
	for cmd, want := range map[string]string{
		"exec head -1 /proc/self/status": "Name:\thead\n",
		"exec ls /dev/fd/":               "0\n1\n",
		"bash -c 'cat <(echo procsub)'":  "procsub\n",
	} {
		if s := start(t, m, req(cmd)); !strings.HasPrefix(s.Stdout.Text, want) || s.ExitCode != 0 {
			t.Errorf("%s: %+v", cmd, s)
		}
	}
}
