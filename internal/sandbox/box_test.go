//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// boxedRun runs script under /bin/sh in a box granting ws and the system,
// and returns its output and the sandbox's report.
func boxedRun(t *testing.T, p Policy, dir, script string) (string, Report, error) {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", script)
	c.Dir = dir
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	p.Landlock = true
	p.ReadExec = append(p.ReadExec, SystemReadExec...)
	p.ReadOnly = append(p.ReadOnly, SystemReadFiles...)
	p.ReadWrite = SystemDevices
	sc := Command(c, p)
	if err := sc.Start(); err != nil {
		return out.String(), sc.Report(), err
	}
	err := sc.Wait()
	if r := sc.Report(); r.Box != "sealed" {
		testkit.Missing(t, "the sealed box: %s", r.BoxReason)
	}
	return out.String(), sc.Report(), err
}

func canonDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A granted path reached through links is bound at its canonical place,
// and the links are made again, so both spellings work in the box.
func TestBoxKeepsLinksOnTheWay(t *testing.T) {
	base := canonDir(t)
	real := filepath.Join(base, "real", "tools")
	os.MkdirAll(real, 0o755)
	os.WriteFile(filepath.Join(real, "hello"), []byte("#!/bin/sh\necho hello\n"), 0o755)
	os.Symlink("real", filepath.Join(base, "alias"))
	ws := canonDir(t)
	out, _, err := boxedRun(t, Policy{Full: []string{ws}, ReadExec: []string{filepath.Join(base, "alias", "tools")}}, ws,
		filepath.Join(base, "alias", "tools", "hello")+"; "+filepath.Join(real, "hello"))
	if err != nil || out != "hello\nhello\n" {
		t.Fatalf("%v: %q", err, out)
	}
	binds, links := planBox(Policy{ReadExec: []string{filepath.Join(base, "alias", "tools")}})
	if len(binds) != 1 || binds[0].Path != real || !slices.Contains(links, boxLink{Path: filepath.Join(base, "alias"), Target: "real"}) {
		t.Fatalf("binds %+v links %+v", binds, links)
	}
}

// A granted directory that the command (or anyone) turns into a link
// after the server checked it is not followed when the box is built: the
// box refuses to start rather than bind what the link names.
func TestBoxRefusesAPathSwappedForALink(t *testing.T) {
	ws := canonDir(t)
	secret := canonDir(t)
	os.WriteFile(filepath.Join(secret, "id_rsa"), []byte("KEY"), 0o600)
	tools := filepath.Join(canonDir(t), "bin")
	os.Mkdir(tools, 0o755)
	p := Policy{Landlock: true, Full: []string{ws}, ReadExec: append([]string{tools}, SystemReadExec...), ReadOnly: SystemReadFiles}
	box, reason := newBox(p)
	if box == nil {
		testkit.Missing(t, "the sealed box: %s", reason)
	}
	// The swap, between the server's check and the box's build.
	os.Remove(tools)
	os.Symlink(secret, tools)
	c := exec.Command("/bin/sh", "-c", "cat "+filepath.Join(tools, "id_rsa"))
	c.Dir = ws
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	sc := &Cmd{Cmd: c, Policy: p}
	err := sc.startHelper(box, Report{})
	if err == nil {
		sc.Wait()
	}
	if strings.Contains(out.String(), "KEY") || err == nil || !strings.Contains(err.Error(), tools) {
		t.Fatalf("the swapped link was followed: %v %q", err, out.String())
	}
}

// Credential stores inside a granted root are covered.
func TestBoxHidesWhatItIsTold(t *testing.T) {
	ws := canonDir(t)
	root := canonDir(t)
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	os.MkdirAll(filepath.Join(root, "keys"), 0o700)
	os.WriteFile(filepath.Join(root, "keys", "k"), []byte("KEY"), 0o600)
	os.WriteFile(filepath.Join(root, "credentials.toml"), []byte("TOKEN"), 0o600)
	out, _, err := boxedRun(t, Policy{Full: []string{ws}, ReadExec: []string{root},
		Hide: []string{filepath.Join(root, "keys"), filepath.Join(root, "credentials.toml")}, NoLandlock: true}, ws,
		"ls "+root+"/bin >/dev/null && echo bin; cat "+root+"/keys/k "+root+"/credentials.toml 2>&1; echo end")
	if err != nil || strings.Contains(out, "KEY") || strings.Contains(out, "TOKEN") || !strings.HasPrefix(out, "bin\n") {
		t.Fatalf("%v: %q", err, out)
	}
}

// An agent's home in the box: a scratch directory it may write (nothing
// kept), its own directory bound read-write (kept), its own files copied
// in, and nothing else of the home.
func TestBoxScratchHome(t *testing.T) {
	home := canonDir(t)
	os.MkdirAll(filepath.Join(home, ".agent"), 0o700)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY"), 0o600)
	os.WriteFile(filepath.Join(home, ".agent.json"), []byte(`{"login":"yes"}`), 0o600)
	ws := canonDir(t)
	out, _, err := boxedRun(t, Policy{Full: []string{ws, filepath.Join(home, ".agent")}, Scratch: []string{home},
		Seed: []string{filepath.Join(home, ".agent.json")}}, ws, `cd `+home+` && cat .agent.json && echo
echo changed > .agent.json && echo top > top.txt && echo kept > .agent/session && ls -A; cat .ssh/id_rsa 2>/dev/null || echo "no key"`)
	if err != nil || out != "{\"login\":\"yes\"}\n.agent\n.agent.json\ntop.txt\nno key\n" {
		t.Fatalf("%v: %q", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".agent", "session")); string(b) != "kept\n" {
		t.Fatalf("the bound directory lost its write: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".agent.json")); string(b) != `{"login":"yes"}` {
		t.Fatalf("the copied file changed on the host: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "top.txt")); err == nil {
		t.Fatal("a file written in the scratch home reached the host")
	}
}

// Root in the box is root of a user namespace that owns nothing else: the
// server's files look root's (what Gemini CLI wants of its settings),
// and the box's mounts, network and system stay out of its reach.
func TestBoxRootOwnsNothing(t *testing.T) {
	ws := canonDir(t)
	out, _, err := boxedRun(t, Policy{Full: []string{ws}, RootInBox: true}, ws, `id -u; stat -c %u .
mkdir -p m && mount -t tmpfs none m 2>/dev/null && echo mounted
touch /usr/x 2>/dev/null && echo "wrote /usr"
ip link set lo down 2>/dev/null && echo "lo down"
unshare -m true 2>/dev/null && echo "new namespace"
echo end`)
	if err != nil || out != "0\n0\nend\n" {
		t.Fatalf("%v: %q", err, out)
	}
}

// A workspace on tmpfs under /dev/shm is bound into the box's own
// /dev/shm, which holds nothing else of the host's.
func TestBoxBindsAWorkspaceInDevShm(t *testing.T) {
	ws, err := os.MkdirTemp("/dev/shm", "sudocode-box-")
	if err != nil {
		testkit.Missing(t, "a writable /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	other, err := os.MkdirTemp("/dev/shm", "sudocode-other-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	os.WriteFile(filepath.Join(ws, "f"), []byte("in the workspace\n"), 0o600)
	out, _, err := boxedRun(t, Policy{Full: []string{ws}}, ws, "cat f; echo new > g && cat g; ls "+other+" 2>&1 | head -c 0; test -e "+other+" || echo no-other")
	if err != nil || out != "in the workspace\nnew\nno-other\n" {
		t.Fatalf("%v: %q", err, out)
	}
}
