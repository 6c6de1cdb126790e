//go:build linux

package procs

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Each test here is a way out of the sealed box that once worked: the
// command shared the server's network, sockets and mounts, and a rule
// that did not see a route let it through. The commands go straight to
// the Manager, as a command the text policy let through would.

// boxed is a manager whose commands must run sealed.
func boxed(t *testing.T, opts Options) *Manager {
	t.Helper()
	m := newManager(t, opts)
	s := start(t, m, req("true"))
	for _, w := range s.Warnings {
		if strings.Contains(w, "sealed box is unavailable") {
			testkit.Missing(t, "the sealed box (unprivileged user namespaces): %s", w)
		}
	}
	return m
}

// python writes a script into the workspace and runs it.
func python(t *testing.T, m *Manager, script string, mods ...func(*Request)) *Snapshot {
	t.Helper()
	testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
	name := "s" + marker() + ".py"
	if err := os.WriteFile(filepath.Join(m.opts.Root, name), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return start(t, m, req("python3 "+name, mods...))
}

// TCP Fast Open connects with sendto, which Landlock's TCP rules do not
// see: it reached the server's own loopback, where the agent endpoint
// listened. The box has a loopback of its own.
func TestBoxTCPFastOpenReachesNothing(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	port, accepted := listener(t)
	s := python(t, m, fmt.Sprintf(`import socket
s = socket.socket()
try:
    s.sendto(b"GET / HTTP/1.0\r\n\r\n", socket.MSG_FASTOPEN, ("127.0.0.1", %s))
    print("sent")
except OSError as e:
    print("refused", e)
`, port))
	if strings.Contains(s.Stdout.Text, "sent") || !strings.Contains(s.Stdout.Text, "refused") {
		t.Fatalf("TCP Fast Open: %q %q", s.Stdout.Text, s.Stderr.Text)
	}
	if n := accepted(); n != 0 {
		t.Fatalf("the server's loopback accepted %d connections from the box", n)
	}
}

// UDP left with the network off: Landlock has no UDP rules.
func TestBoxUDPGoesNowhere(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := pc.LocalAddr().(*net.UDPAddr).Port
	s := python(t, m, fmt.Sprintf(`import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"leak", ("127.0.0.1", %d))
print("done")
`, port))
	if !strings.Contains(s.Stdout.Text, "done") {
		t.Fatalf("the command did not run: %q %q", s.Stdout.Text, s.Stderr.Text)
	}
	// The box's datagrams went to its own loopback, so none can arrive
	// here; a last datagram from the test itself shows that reading works.
	c, err := net.Dial("udp4", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("mine"))
	c.Close()
	buf := make([]byte, 16)
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "mine" {
		t.Fatalf("first datagram %q (%v): the box's datagram arrived before the test's own", buf[:n], err)
	}
}

// Pathname sockets outside the workspace (an ssh-agent's, Docker's, the
// user's D-Bus) and the host's abstract sockets cannot be named.
func TestBoxReachesNoHostSocket(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	path := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	abstract := "@sudocode-test-" + marker()
	la, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	s := python(t, m, fmt.Sprintf(`import socket
for name in (%q, "\0" + %q):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(name)
        print("connected", repr(name))
    except OSError as e:
        print("refused", e)
`, path, abstract[1:]))
	if strings.Contains(s.Stdout.Text, "connected") || strings.Count(s.Stdout.Text, "\nrefused ") != 1 || !strings.HasPrefix(s.Stdout.Text, "refused ") {
		t.Fatalf("host sockets: %q %q", s.Stdout.Text, s.Stderr.Text)
	}
}

// Nothing of the host but what the box grants exists in it: no host
// /tmp, /run or other home, nothing of the user's home but the toolchains
// on PATH; the root itself is read-only, /tmp is the box's own.
func TestBoxSeesOnlyItsOwnRoot(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	secret := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(secret, []byte("KEY"), 0o600)
	want := []string{secret, "/run", "/var", "/etc/shadow"}
	home, _ := os.UserHomeDir()
	ents, _ := os.ReadDir(home)
	for _, e := range ents {
		p := filepath.Join(home, e.Name())
		granted := false
		for _, d := range m.toolPaths {
			granted = granted || d == p || strings.HasPrefix(d, p+"/")
		}
		if !granted {
			want = append(want, p)
		}
	}
	s := start(t, m, req(fmt.Sprintf(`for p in %s; do
  if [ -e "$p" ]; then echo "present $p"; else echo "absent $p"; fi
done
touch /newfile 2>/dev/null && echo "wrote /newfile"
echo tmp > /tmp/x && cat /tmp/x`, strings.Join(want, " "))))
	for _, p := range want {
		if !strings.Contains(s.Stdout.Text, "absent "+p+"\n") {
			t.Errorf("%s is in the box: %q %q", p, s.Stdout.Text, s.Stderr.Text)
		}
	}
	if strings.Contains(s.Stdout.Text, "wrote") || !strings.HasSuffix(s.Stdout.Text, "tmp\n") {
		t.Fatalf("root or /tmp: %q %q", s.Stdout.Text, s.Stderr.Text)
	}
	if b, err := os.ReadFile("/tmp/x"); err == nil && string(b) == "tmp\n" {
		t.Fatal("the box's /tmp is the host's")
	}
}

// A server running as root (CI, containers) once gave its commands every
// capability: a packet socket on lo read other clients' bearer tokens,
// mknod and /dev/kmsg worked, addresses were added to lo. The command now
// runs as an unprivileged uid in a nested user namespace, with none.
func TestBoxHoldsNoCapability(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	s := start(t, m, req(`while read -r k v; do case $k in Uid:|CapEff:|CapPrm:) echo "$k $v";; esac; done < /proc/$$/status
mknod kmsg c 1 11 2>/dev/null && echo "mknod worked"
cat /dev/kmsg >/dev/null 2>&1 && echo "kmsg read"
unshare -Ur true 2>/dev/null && echo "new user namespace"
ip addr add 10.9.9.9/32 dev lo 2>/dev/null && echo "address added"
true`))
	out := s.Stdout.Text
	for _, bad := range []string{"mknod worked", "kmsg read", "new user namespace", "address added"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: %q", bad, out)
		}
	}
	if !strings.Contains(out, "CapEff: 0000000000000000") || !strings.Contains(out, "CapPrm: 0000000000000000") {
		t.Errorf("capabilities: %q %q", out, s.Stderr.Text)
	}
	if strings.Contains(out, "Uid: 0\t") || !strings.Contains(out, "Uid:") {
		t.Errorf("the command runs as root: %q", out)
	}
	p := python(t, m, `import socket
for fam, typ in ((socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_INET, socket.SOCK_RAW), (40, socket.SOCK_STREAM)):
    try:
        socket.socket(fam, typ, 0 if fam == 40 else 3 if fam == socket.AF_PACKET else 1)
        print("opened", fam)
    except OSError as e:
        print("refused", fam)
`)
	if strings.Contains(p.Stdout.Text, "opened") || strings.Count(p.Stdout.Text, "refused") != 3 {
		t.Fatalf("packet, raw and vsock sockets: %q %q", p.Stdout.Text, p.Stderr.Text)
	}
}

// The box's own loopback works: a test suite may start a server on
// 127.0.0.1 and talk to it, which no route outside can reach.
func TestBoxServesItsOwnLoopback(t *testing.T) {
	t.Parallel()
	m := boxed(t, Options{})
	s := python(t, m, `import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
c = socket.socket(); c.connect(srv.getsockname())
a, _ = srv.accept(); a.sendall(b"hello"); print(c.recv(5).decode())
`)
	if s.Stdout.Text != "hello\n" {
		t.Fatalf("loopback in the box: %q %q", s.Stdout.Text, s.Stderr.Text)
	}
}

// Where the kernel refuses the box, the command still runs behind the
// fallback walls, and every answer says what is missing.
func TestBoxUnavailableIsSaid(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	m.noBox = true
	s := start(t, m, req("echo ran"))
	if s.Stdout.Text != "ran\n" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "sealed box is unavailable") {
		t.Fatalf("%q %v", s.Stdout.Text, s.Warnings)
	}
	// The fallback's seccomp filter refuses UDP, which Landlock cannot.
	p := python(t, m, `import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print("opened")
except OSError:
    print("refused")
`)
	if p.Stdout.Text != "refused\n" {
		t.Fatalf("UDP in the fallback: %q %q", p.Stdout.Text, p.Stderr.Text)
	}
}
