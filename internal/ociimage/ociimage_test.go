package ociimage_test

// The image is built once, in TestMain, as the builder builds it: the go
// command cross-compiles the three binaries (static, -trimpath, version
// set), Assemble lays them out, WriteTarball writes the docker-loadable
// tarball. Every test reads that tarball back with go-containerregistry, as
// `docker load` would, and checks what it holds; the binaries taken out of
// it must be the real servers.

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/ociimage"
	"github.com/sudocode/sudocode/internal/testkit"
)

const testVersion = "v9.8.7-test"

var (
	testCreated = time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)
	testOpts    = ociimage.Options{Version: testVersion, Revision: "0123456789abcdef", Created: testCreated}

	binDir   string // the compiled binaries
	imageTar string // the image, written by WriteTarball
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "ociimage-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir, imageTar = filepath.Join(dir, "bin"), filepath.Join(dir, "dist", "mcp-ruleset-server.tar")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		if err := ociimage.Compile(ctx, testOpts, binDir); err != nil {
			fmt.Fprintln(os.Stderr, "building the binaries:", err)
			return 1
		}
		compiled := time.Since(start)
		img, err := ociimage.Assemble(testOpts, binDir)
		if err == nil {
			err = ociimage.WriteTarball(imageTar, img, "")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "building the image:", err)
			return 1
		}
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "image built: go build %v, image %v\n",
				compiled.Round(time.Millisecond), (time.Since(start) - compiled).Round(time.Millisecond))
		}
		return m.Run()
	}())
}

// loadImage reads the tarball back, as docker load does.
func loadImage(t *testing.T) v1.Image {
	t.Helper()
	img, err := tarball.ImageFromPath(imageTar, nil)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func configOf(t *testing.T, img v1.Image) *v1.ConfigFile {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return cf
}

// file is a layer entry.
type file struct {
	layer int
	hdr   *tar.Header
	data  []byte // regular files only
}

var (
	filesOnce sync.Once
	filesList []file
	filesErr  error
)

// imageFiles walks every layer of the image read back from the tarball.
func imageFiles(t *testing.T) []file {
	t.Helper()
	filesOnce.Do(func() {
		img, err := tarball.ImageFromPath(imageTar, nil)
		if err != nil {
			filesErr = err
			return
		}
		layers, err := img.Layers()
		if err != nil {
			filesErr = err
			return
		}
		for i, l := range layers {
			rc, err := l.Uncompressed()
			if err != nil {
				filesErr = err
				return
			}
			tr := tar.NewReader(rc)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					filesErr = fmt.Errorf("layer %d: %w", i, err)
					return
				}
				f := file{layer: i, hdr: h}
				if h.Typeflag == tar.TypeReg {
					if f.data, err = io.ReadAll(tr); err != nil {
						filesErr = err
						return
					}
				}
				filesList = append(filesList, f)
			}
			rc.Close()
		}
	})
	if filesErr != nil {
		t.Fatal(filesErr)
	}
	return filesList
}

// flat is the image's filesystem by absolute path, later layers winning.
func flat(t *testing.T) map[string]file {
	m := map[string]file{}
	for _, f := range imageFiles(t) {
		m["/"+strings.Trim(path.Clean(f.hdr.Name), "/")] = f
	}
	return m
}

// The configuration runs mcp-ruleset-server as uid 65532 with the data
// directory in XDG_DATA_HOME, and carries the OCI labels.
func TestImageConfig(t *testing.T) {
	img := loadImage(t)
	cf := configOf(t, img)
	c := cf.Config
	if want := []string{"/usr/local/bin/mcp-ruleset-server"}; !slices.Equal(c.Entrypoint, want) {
		t.Errorf("Entrypoint = %q, want %q", c.Entrypoint, want)
	}
	if len(c.Cmd) != 0 {
		t.Errorf("Cmd = %q, want none: `docker run -i --rm IMAGE` must serve stdio", c.Cmd)
	}
	user, group, _ := strings.Cut(c.User, ":")
	if user == "" || user == "0" || user == "root" || group == "0" || group == "root" {
		t.Errorf("User = %q: runs as root", c.User)
	}
	if c.User != "65532:65532" {
		t.Errorf("User = %q, want 65532:65532", c.User)
	}
	for _, want := range []string{"PATH=/usr/local/bin", "HOME=/home/nonroot", "XDG_DATA_HOME=/data"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("Env = %q, missing %q", c.Env, want)
		}
	}
	if c.WorkingDir != "/workspace" {
		t.Errorf("WorkingDir = %q", c.WorkingDir)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.source":   ociimage.DefaultSource,
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": testOpts.Revision,
		"org.opencontainers.image.created":  "2025-10-29T10:30:00Z",
		"org.opencontainers.image.title":    "mcp-ruleset-server",
	} {
		if got := c.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if cf.OS != "linux" || cf.Architecture == "" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if !cf.Created.Time.Equal(testCreated) {
		t.Errorf("created %v, want %v", cf.Created.Time, testCreated)
	}
	if len(cf.History) != len(cf.RootFS.DiffIDs) {
		t.Errorf("%d history entries for %d layers", len(cf.History), len(cf.RootFS.DiffIDs))
	}
}

// The tarball is docker-loadable: one image, tagged as the seed runs it.
func TestImageTarballTag(t *testing.T) {
	mf, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(imageTar) })
	if err != nil {
		t.Fatal(err)
	}
	if len(mf) != 1 || !slices.Equal(mf[0].RepoTags, []string{"mcp-ruleset-server:latest"}) {
		t.Fatalf("manifest.json = %+v, want one image tagged mcp-ruleset-server:latest", mf)
	}
	if fi, err := os.Stat(imageTar); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("tarball: %v, %v", fi.Mode(), err)
	}
}

var shells = []string{"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox", "toybox", "rbash"}

// No layer holds a shell, and every executable file in the image is one of
// the three binaries, a static ELF for the image's architecture: there is
// nothing else to run in it.
func TestImageHasNoShell(t *testing.T) {
	arch := configOf(t, loadImage(t)).Architecture
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390}[arch]
	var execs []string
	for _, f := range imageFiles(t) {
		name := "/" + strings.Trim(f.hdr.Name, "/")
		if slices.Contains(shells, path.Base(name)) {
			t.Errorf("layer %d holds %s", f.layer, name)
		}
		if name == "/bin" || name == "/sbin" || strings.HasPrefix(name, "/bin/") || strings.HasPrefix(name, "/usr/bin") {
			t.Errorf("layer %d holds %s: the image has no system binaries", f.layer, name)
		}
		switch f.hdr.Typeflag {
		case tar.TypeSymlink, tar.TypeLink:
			t.Errorf("layer %d: link %s -> %s (none expected)", f.layer, name, f.hdr.Linkname)
		case tar.TypeReg:
			if f.hdr.Mode&0o111 == 0 {
				continue
			}
			execs = append(execs, name)
			e, err := elf.NewFile(bytes.NewReader(f.data))
			if err != nil {
				t.Errorf("%s is executable but not an ELF binary (a script?): %v", name, err)
				continue
			}
			for _, p := range e.Progs {
				if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
					t.Errorf("%s is dynamically linked (program header %v)", name, p.Type)
				}
			}
			if want != 0 && e.Machine != want {
				t.Errorf("%s is for %v, the image for %s", name, e.Machine, arch)
			}
		}
	}
	slices.Sort(execs)
	if wantExecs := []string{"/usr/local/bin/coding-tools-mcp", "/usr/local/bin/mcp-ruleset-server", "/usr/local/bin/sudocode"}; !slices.Equal(execs, wantExecs) {
		t.Errorf("executables %q, want exactly %q", execs, wantExecs)
	}
}

// What the non-root user needs is there and owned right: the binaries
// (root's, executable by all), the user in /etc/passwd and /etc/group, its
// home, data and working directories, /tmp, and the build machine's CA
// certificates.
func TestImageFilesystem(t *testing.T) {
	fs := flat(t)
	check := func(name string, typ byte, mode int64, uid int) file {
		t.Helper()
		f, ok := fs[name]
		if !ok {
			t.Errorf("%s missing", name)
			return f
		}
		if f.hdr.Typeflag != typ || f.hdr.Mode != mode || f.hdr.Uid != uid || f.hdr.Gid != uid {
			t.Errorf("%s: type %c mode %o uid %d gid %d; want type %c mode %o uid/gid %d",
				name, f.hdr.Typeflag, f.hdr.Mode, f.hdr.Uid, f.hdr.Gid, typ, mode, uid)
		}
		if !f.hdr.ModTime.Equal(testCreated) {
			t.Errorf("%s: time %v, want the build's %v", name, f.hdr.ModTime, testCreated)
		}
		return f
	}
	for _, c := range ociimage.Commands {
		check("/usr/local/bin/"+c, tar.TypeReg, 0o755, 0)
	}
	check("/usr/local/bin", tar.TypeDir, 0o755, 0)
	check("/tmp", tar.TypeDir, 0o1777, 0)
	check("/data", tar.TypeDir, 0o755, 65532)
	check("/workspace", tar.TypeDir, 0o755, 65532)
	check("/home/nonroot", tar.TypeDir, 0o700, 65532)
	passwd := check("/etc/passwd", tar.TypeReg, 0o644, 0)
	if !regexp.MustCompile(`(?m)^nonroot:x:65532:65532:[^:]*:/home/nonroot:[^:]*$`).Match(passwd.data) {
		t.Errorf("/etc/passwd has no nonroot user 65532 at /home/nonroot:\n%s", passwd.data)
	}
	group := check("/etc/group", tar.TypeReg, 0o644, 0)
	if !regexp.MustCompile(`(?m)^nonroot:x:65532:`).Match(group.data) {
		t.Errorf("/etc/group has no group 65532:\n%s", group.data)
	}
	if host, err := os.ReadFile(ociimage.CACerts); err == nil {
		if f := check(ociimage.CACerts, tar.TypeReg, 0o644, 0); f.hdr != nil && !bytes.Equal(f.data, host) {
			t.Errorf("%s differs from the build machine's", ociimage.CACerts)
		}
	}
	for name, f := range fs {
		if f.hdr.Uid != 0 && f.hdr.Uid != 65532 {
			t.Errorf("%s owned by %d", name, f.hdr.Uid)
		}
		if f.hdr.Typeflag == tar.TypeReg && f.hdr.Mode&0o022 != 0 {
			t.Errorf("%s is writable by others (%o)", name, f.hdr.Mode)
		}
	}
}

// extract writes the image's file name to dir and returns its path.
func extract(t *testing.T, name, dir string) string {
	t.Helper()
	f, ok := flat(t)[name]
	if !ok {
		t.Fatalf("%s not in the image", name)
	}
	p := filepath.Join(dir, path.Base(name))
	if err := os.WriteFile(p, f.data, os.FileMode(f.hdr.Mode).Perm()); err != nil {
		t.Fatal(err)
	}
	return p
}

// The binaries in the image run, and carry the version the build set.
func TestImageBinariesRun(t *testing.T) {
	dir := t.TempDir()
	for _, c := range ociimage.Commands {
		bin := extract(t, "/usr/local/bin/"+c, dir)
		args := []string{"--help"}
		if c == "sudocode" {
			args = []string{"--version"}
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + dir}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", c, args[0], err, out)
			continue
		}
		if c == "sudocode" && !strings.Contains(string(out), testVersion) {
			t.Errorf("sudocode --version = %q, want the build's %s", out, testVersion)
		}
	}
}

// rulesetsOverStdio speaks MCP to cmd as an editor would, and creates and
// reads back a ruleset.
func rulesetsOverStdio(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "image-test", Version: "0"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, &stderr)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v\nstderr:\n%s", err, &stderr)
		}
	}()
	if info := s.InitializeResult().ServerInfo; info == nil || info.Name != "MCP Ruleset Server" {
		t.Errorf("server info %+v, want MCP Ruleset Server", info)
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v\nstderr:\n%s", err, &stderr)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"upsert_ruleset", "get_ruleset", "delete_ruleset", "list_rulesets", "search_rulesets"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %q, missing %s", names, want)
		}
	}
	call := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", tool, err, &stderr)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError {
			t.Fatalf("%s: tool error %s", tool, text.String())
		}
		return text.String()
	}
	call("upsert_ruleset", map[string]any{"name": "image_check", "description": "written from the image's binary", "markdown": "# In the image\n"})
	if got := call("get_ruleset", map[string]any{"name": "image_check"}); !strings.Contains(got, "# In the image") {
		t.Errorf("get_ruleset = %q", got)
	}
}

// The mcp-ruleset-server binary taken out of the image is the real server:
// it answers initialize and tools/list over stdio and keeps a ruleset in
// its embedded store under XDG_DATA_HOME, the variable the image sets, with
// nothing else in its environment.
func TestImageRulesetServerSpeaksMCP(t *testing.T) {
	dir := t.TempDir()
	bin := extract(t, ociimage.Entrypoint, dir)
	home, data := filepath.Join(dir, "home"), filepath.Join(dir, "data")
	for _, d := range []string{home, data} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + data}
	cmd.Dir = dir
	rulesetsOverStdio(t, cmd)
	if _, err := os.Stat(filepath.Join(data, "sudocode", "rulesets", "rulesets.db")); err != nil {
		t.Errorf("the store is not under XDG_DATA_HOME: %v", err)
	}
}

// unpack lays the image's filesystem out in root as a container runtime
// does, with owners when running as root.
func unpack(t *testing.T, root string) {
	t.Helper()
	asRoot := os.Geteuid() == 0
	for _, f := range imageFiles(t) {
		p := filepath.Join(root, filepath.FromSlash(path.Clean(f.hdr.Name)))
		mode := os.FileMode(f.hdr.Mode).Perm()
		switch f.hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.WriteFile(p, f.data, mode); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: unexpected type %c", f.hdr.Name, f.hdr.Typeflag)
		}
		if asRoot {
			if err := os.Lchown(p, f.hdr.Uid, f.hdr.Gid); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(p, mode|modeBits(f.hdr.Mode)); err != nil {
			t.Fatal(err)
		}
	}
}

func modeBits(m int64) os.FileMode {
	var b os.FileMode
	if m&0o1000 != 0 {
		b |= os.ModeSticky
	}
	return b
}

// The image runs as `docker run -i --rm mcp-ruleset-server:latest` runs
// it: its filesystem as the root, its entrypoint, environment, working
// directory and user (uid 65532, not root) from its configuration, MCP on
// stdin and stdout. The ruleset it stores lands in /data, which the user
// can write. As root the test chroots and drops to the user; otherwise it
// does so in a new user namespace.
func TestImageRunsLikeDockerRun(t *testing.T) {
	cf := configOf(t, loadImage(t))
	c := cf.Config
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	unpack(t, root)
	uid, gid := 65532, 65532
	if _, err := fmt.Sscanf(c.User, "%d:%d", &uid, &gid); err != nil {
		t.Fatalf("User %q: %v", c.User, err)
	}
	attr := &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if os.Geteuid() != 0 {
		attr.Cloneflags = syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: os.Getgid(), Size: 1}}
		attr.Credential.NoSetGroups = true
	}
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(c.Entrypoint[0], append(append(c.Entrypoint[1:], c.Cmd...), args...)...)
		cmd.Env, cmd.Dir, cmd.SysProcAttr = c.Env, c.WorkingDir, attr
		return cmd
	}
	if out, err := run("--help").CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			testkit.Missing(t, "cannot chroot here: run the tests as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1): %v", err)
		}
		t.Fatalf("running the entrypoint in the image's root: %v\n%s", err, out)
	}
	cmd := run()
	rulesetsOverStdio(t, cmd)
	db := filepath.Join(root, "data", "sudocode", "rulesets", "rulesets.db")
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatalf("the store is not in the image's /data: %v", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 && (st.Uid != uint32(uid) || st.Gid != uint32(gid)) {
		t.Errorf("%s owned by %d:%d, want the image's user %d:%d", db, st.Uid, st.Gid, uid, gid)
	}
}

// An OCI image layout holds the same image, named by the tag.
func TestWriteLayout(t *testing.T) {
	img, err := ociimage.Assemble(testOpts, binDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := ociimage.WriteLayout(dir, img, ""); err != nil {
		t.Fatal(err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := img.Digest()
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != want {
		t.Fatalf("index %+v, want the one image %v", im.Manifests, want)
	}
	if a := im.Manifests[0].Annotations; a["org.opencontainers.image.ref.name"] != "latest" ||
		a["io.containerd.image.name"] != "docker.io/library/mcp-ruleset-server:latest" {
		t.Errorf("annotations %v", a)
	}
	got, err := idx.Image(want)
	if err != nil {
		t.Fatal(err)
	}
	if cf := configOf(t, got); cf.Config.Entrypoint[0] != ociimage.Entrypoint {
		t.Errorf("entrypoint %q", cf.Config.Entrypoint)
	}
	// The layout keeps the OCI media types the image is made with (the
	// docker tarball's manifest.json has none).
	if mt, err := got.MediaType(); err != nil || mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %q, %v", mt, err)
	}
	m, err := got.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != types.OCIConfigJSON {
		t.Errorf("config media type %q", m.Config.MediaType)
	}
	for _, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Errorf("layer media type %q", l.MediaType)
		}
	}
}

// The same binaries and options give the same image, byte for byte, and
// the tarball holds its config and layers unchanged; a different time gives
// another image.
func TestAssembleReproducible(t *testing.T) {
	assemble := func(o ociimage.Options) v1.Image {
		t.Helper()
		img, err := ociimage.Assemble(o, binDir)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	digest := func(img v1.Image) v1.Hash {
		t.Helper()
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first, second := assemble(testOpts), assemble(testOpts)
	if a, b := digest(first), digest(second); a != b {
		t.Errorf("the same build gave %v and %v", a, b)
	}
	loaded := loadImage(t)
	a, err := first.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := loaded.ConfigName(); err != nil || a != b {
		t.Errorf("config %v in the tarball, %v built (%v)", b, a, err)
	}
	la, _ := first.Layers()
	lb, _ := loaded.Layers()
	if len(la) != len(lb) {
		t.Fatalf("%d layers in the tarball, %d built", len(lb), len(la))
	}
	for i := range la {
		da, _ := la[i].Digest()
		db, _ := lb[i].Digest()
		if da != db {
			t.Errorf("layer %d: %v in the tarball, %v built", i, db, da)
		}
	}
	o := testOpts
	o.Created = testCreated.Add(time.Hour)
	if d := digest(assemble(o)); d == digest(first) {
		t.Errorf("another creation time, same digest %v", d)
	}
}

func TestOptionsRefused(t *testing.T) {
	if _, err := ociimage.Assemble(ociimage.Options{Version: "1.0 -X main.evil=1"}, binDir); err == nil {
		t.Error("a version with spaces (more -ldflags) was accepted")
	}
	if _, err := ociimage.Assemble(ociimage.Options{CACerts: filepath.Join(t.TempDir(), "none.pem")}, binDir); err == nil {
		t.Error("a missing CA bundle was accepted")
	}
	if _, err := ociimage.Assemble(testOpts, t.TempDir()); err == nil {
		t.Error("a directory without the binaries was accepted")
	}
	if err := ociimage.WriteTarball(filepath.Join(t.TempDir(), "x.tar"), loadImage(t), "Not A Tag"); err == nil {
		t.Error("an invalid tag was accepted")
	}
}
