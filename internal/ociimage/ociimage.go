// Package ociimage builds the container image of Sudocode without a Docker
// daemon: it cross-compiles the three binaries as static executables
// (CGO_ENABLED=0, -trimpath) with the go command, lays them out on an empty
// base with just what a non-root static program needs (/etc/passwd and
// /etc/group entries for the user, CA certificates, /tmp, a writable data
// directory), and writes the result as a docker-loadable tarball or an OCI
// image layout with github.com/google/go-containerregistry.
//
// There is no shell, no package manager and no libc in the image: every
// executable file in it is one of the three binaries. The same image is
// described by the Dockerfile at the root of the module for those who build
// with Docker; the tests keep the two in agreement.
package ociimage

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's layout and configuration. The Dockerfile uses the same values.
const (
	// Module is the module whose commands are built.
	Module = "github.com/sudocode/sudocode"
	// VersionVar is the variable -ldflags -X sets to the version.
	VersionVar = Module + "/internal/cli.Version"

	BinDir     = "/usr/local/bin"
	Entrypoint = BinDir + "/mcp-ruleset-server"

	UID      = 65532
	GID      = 65532
	UserName = "nonroot"
	User     = "65532:65532"
	Home     = "/home/nonroot"
	// DataDir is XDG_DATA_HOME in the image: the embedded ruleset store is
	// DataDir/sudocode/rulesets. It belongs to the user; mount a volume on
	// it to keep the store.
	DataDir = "/data"
	// WorkDir is the working directory: the coding tools' workspace and
	// the tracker's project when a directory is mounted on it.
	WorkDir = "/workspace"
	// CACerts is where Go's crypto/x509 looks for roots on Linux (and where
	// the Dockerfile's distroless base has them).
	CACerts = "/etc/ssl/certs/ca-certificates.crt"

	DefaultTag     = "mcp-ruleset-server:latest"
	DefaultSource  = "https://github.com/sudocode/sudocode"
	DefaultVersion = "0.1.0-dev"
)

// Commands are the binaries the image holds, by their directory under cmd/.
var Commands = []string{"mcp-ruleset-server", "sudocode", "coding-tools-mcp"}

// Env is the image's environment.
var Env = []string{
	"PATH=" + BinDir,
	"HOME=" + Home,
	"XDG_DATA_HOME=" + DataDir,
}

// Options describe one build. The zero value builds the module found from
// the working directory for the machine's architecture.
type Options struct {
	// ModuleDir is the module's root; default: found by walking up from
	// the working directory to a go.mod of Module.
	ModuleDir string
	// Arch is the GOARCH to build for (the image's architecture); default
	// runtime.GOARCH. The OS is always linux.
	Arch string
	// Version goes into the binaries (-X VersionVar) and the version
	// label; default DefaultVersion.
	Version string
	// Revision is the org.opencontainers.image.revision label, if set.
	Revision string
	// Source is the org.opencontainers.image.source label; default
	// DefaultSource.
	Source string
	// Created is the image's creation time and the time of every file in
	// it; the zero value is the Unix epoch, so that a build is
	// reproducible.
	Created time.Time
	// CACerts is a PEM bundle of root certificates to install at CACerts
	// (Valkey over TLS needs them); default the build machine's
	// /etc/ssl/certs/ca-certificates.crt when it exists.
	CACerts string
	// NoCACerts leaves the certificates out.
	NoCACerts bool
	// Go is the go command; default "go" on PATH.
	Go string
	// Stderr receives the go command's output; default os.Stderr.
	Stderr io.Writer
}

var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+~-]*$`) })

// withDefaults fills in o's defaults and checks it.
func (o Options) withDefaults() (Options, error) {
	if o.Arch == "" {
		o.Arch = runtime.GOARCH
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if !versionRE().MatchString(o.Version) {
		return o, fmt.Errorf("version %q: use letters, digits and . _ + ~ -", o.Version)
	}
	if o.Source == "" {
		o.Source = DefaultSource
	}
	if o.Created.IsZero() {
		o.Created = time.Unix(0, 0)
	}
	o.Created = o.Created.UTC().Truncate(time.Second)
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.CACerts == "" && !o.NoCACerts {
		if _, err := os.Stat(CACerts); err == nil {
			o.CACerts = CACerts
		}
	}
	if o.ModuleDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		if o.ModuleDir, err = FindModule(wd); err != nil {
			return o, err
		}
	}
	return o, nil
}

// FindModule returns the directory at or above dir whose go.mod declares
// Module.
func FindModule(dir string) (string, error) {
	for d := dir; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == Module {
					return d, nil
				}
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod of %s at or above %s", Module, dir)
		}
		d = up
	}
}

// Build compiles the binaries into a temporary directory and assembles
// the image from them.
func Build(ctx context.Context, o Options) (v1.Image, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sudocode-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := Compile(ctx, o, dir); err != nil {
		return nil, err
	}
	// Assemble reads the binaries into memory: dir can go.
	return Assemble(o, dir)
}

// Compile builds Commands for linux/o.Arch into dir: static (CGO_ENABLED=0),
// without local paths (-trimpath), stripped, with the version set. One go
// build compiles the three, sharing their packages.
func Compile(ctx context.Context, o Options, dir string) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X " + VersionVar + "=" + o.Version,
		"-o", dir + string(filepath.Separator)}
	for _, c := range Commands {
		args = append(args, "./cmd/"+c)
	}
	cmd := exec.CommandContext(ctx, o.Go, args...)
	cmd.Dir = o.ModuleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.Arch)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, io.MultiWriter(&out, o.Stderr)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	return nil
}

// Assemble makes the image from binaries already built into binDir (by
// Compile, or by the go command with the same settings): a base layer
// (users, certificates, directories) and a layer of the binaries, on an
// empty image, with OCI media types.
func Assemble(o Options, binDir string) (v1.Image, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	base, err := baseLayer(o)
	if err != nil {
		return nil, err
	}
	bins, err := binaryLayer(o, binDir)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.Arch
	if o.Arch == "arm64" {
		cf.Variant = "v8"
	}
	cf.Created = v1.Time{Time: o.Created}
	cf.Config = v1.Config{
		Entrypoint: []string{Entrypoint},
		User:       User,
		Env:        append([]string(nil), Env...),
		WorkingDir: WorkDir,
		Labels:     Labels(o),
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	by := "sudocode internal/ociimage (no daemon, FROM empty)"
	return mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{
			Created: cf.Created, CreatedBy: by, Comment: "users, CA certificates, /tmp, " + DataDir + ", " + WorkDir}},
		mutate.Addendum{Layer: bins, MediaType: types.OCILayer, History: v1.History{
			Created: cf.Created, CreatedBy: by, Comment: "static binaries in " + BinDir + ": " + strings.Join(Commands, ", ")}},
	)
}

// Labels are the image's OCI annotations as labels.
func Labels(o Options) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "mcp-ruleset-server",
		"org.opencontainers.image.description": "Sudocode MCP servers: mcp-ruleset-server (the entrypoint), sudocode and coding-tools-mcp",
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.url":         o.Source,
		"org.opencontainers.image.version":     o.Version,
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	if o.Created.Unix() > 0 {
		l["org.opencontainers.image.created"] = o.Created.Format(time.RFC3339)
	}
	return l
}

// entry is one file or directory of a layer.
type entry struct {
	name     string // absolute
	mode     int64  // permission bits, with 01000 for sticky
	uid, gid int
	dir      bool
	data     []byte
}

func baseLayer(o Options) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", UserName, UID, GID, UserName, Home)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", UserName, GID)
	es := []entry{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "/etc/group", mode: 0o644, data: []byte(group)},
		// Go's resolver reads it; files first, as glibc does.
		{name: "/etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "/root", mode: 0o700, dir: true},
		{name: "/home", mode: 0o755, dir: true},
		{name: Home, mode: 0o700, uid: UID, gid: GID, dir: true},
		{name: "/tmp", mode: 0o1777, dir: true},
		{name: DataDir, mode: 0o755, uid: UID, gid: GID, dir: true},
		{name: WorkDir, mode: 0o755, uid: UID, gid: GID, dir: true},
	}
	if o.CACerts != "" && !o.NoCACerts {
		pem, err := os.ReadFile(o.CACerts)
		if err != nil {
			return nil, fmt.Errorf("CA certificates: %w", err)
		}
		if !bytes.Contains(pem, []byte("-----BEGIN CERTIFICATE-----")) {
			return nil, fmt.Errorf("CA certificates: %s holds no PEM certificate", o.CACerts)
		}
		es = append(es, entry{name: CACerts, mode: 0o644, data: pem})
	}
	return layer(o, es)
}

func binaryLayer(o Options, binDir string) (v1.Layer, error) {
	var es []entry
	for _, c := range Commands {
		data, err := os.ReadFile(filepath.Join(binDir, c))
		if err != nil {
			return nil, fmt.Errorf("binary %s: %w", c, err)
		}
		es = append(es, entry{name: BinDir + "/" + c, mode: 0o755, data: data})
	}
	return layer(o, es)
}

// layer writes es, and every parent directory not among them (0755,
// root), as a tar in path order, and makes a gzip layer of it.
func layer(o Options, es []entry) (v1.Layer, error) {
	byName := map[string]entry{}
	for _, e := range es {
		byName[e.name] = e
		for d := path.Dir(e.name); d != "/"; d = path.Dir(d) {
			if _, ok := byName[d]; !ok {
				byName[d] = entry{name: d, mode: 0o755, dir: true}
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		e := byName[n]
		h := &tar.Header{
			Name:    strings.TrimPrefix(n, "/"),
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.gid,
			Uname:   userName(e.uid),
			Gname:   userName(e.gid),
			ModTime: o.Created,
			Format:  tar.FormatPAX,
		}
		if e.dir {
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

func userName(id int) string {
	switch id {
	case 0:
		return "root"
	case UID:
		return UserName
	}
	return strconv.Itoa(id)
}
