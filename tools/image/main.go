// Command image builds Sudocode's container image without a Docker daemon:
// the three binaries cross-compiled as static executables on an empty base,
// running as uid 65532, with mcp-ruleset-server as the entrypoint. It writes
// a tarball for `docker load` (default dist/mcp-ruleset-server.tar in the
// module) and, with -oci, an OCI image layout too.
//
//	go run ./tools/image                         # dist/mcp-ruleset-server.tar
//	docker load -i dist/mcp-ruleset-server.tar   # mcp-ruleset-server:latest
//	go run ./tools/image -arch arm64 -o dist/arm64.tar -oci dist/oci
//
// The version (in the binaries and the labels) defaults to `git describe`,
// the revision to the commit, and the creation time to SOURCE_DATE_EPOCH or
// the commit's time, so that one commit always gives the same image.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/ociimage"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	opts     ociimage.Options
	out, oci string
	tag      string
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	var created string
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./tools/image [flags]\n\nBuilds the mcp-ruleset-server image (all three binaries) without a Docker daemon.")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.out, "o", "", "docker-loadable tarball to write (default dist/mcp-ruleset-server.tar in the module; \"\" with -oci: none)")
	fs.StringVar(&c.oci, "oci", "", "also write an OCI image layout in `DIR`")
	fs.StringVar(&c.tag, "tag", ociimage.DefaultTag, "image name and tag")
	fs.StringVar(&c.opts.Arch, "arch", "", "GOARCH to build for (default this machine's)")
	fs.StringVar(&c.opts.Version, "version", "", "version for the binaries and the label (default git describe --tags --always --dirty, else "+ociimage.DefaultVersion+")")
	fs.StringVar(&c.opts.Revision, "revision", "", "org.opencontainers.image.revision (default the commit)")
	fs.StringVar(&c.opts.Source, "source", ociimage.DefaultSource, "org.opencontainers.image.source")
	fs.StringVar(&created, "created", "", "creation time, RFC 3339 or Unix seconds (default SOURCE_DATE_EPOCH, else the commit's time)")
	fs.StringVar(&c.opts.CACerts, "ca-certs", "", "PEM bundle installed as "+ociimage.CACerts+" (default the build machine's, if any)")
	fs.BoolVar(&c.opts.NoCACerts, "no-ca-certs", false, "leave the CA certificates out")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	outSet := false
	fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "o" })
	if c.out == "" && (!outSet || c.oci == "") {
		c.out = "dist/mcp-ruleset-server.tar" // made absolute in the module by run
	}
	if created == "" {
		created = os.Getenv("SOURCE_DATE_EPOCH")
	}
	if created != "" {
		t, err := parseTime(created)
		if err != nil {
			return c, err
		}
		c.opts.Created = t
	}
	return c, nil
}

func parseTime(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, fmt.Errorf("creation time %q: want RFC 3339 or Unix seconds", s)
	}
	return t, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "image:", err)
		return 2
	}
	if err := build(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	return 0
}

func build(ctx context.Context, c config, stdout, stderr io.Writer) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	mod, err := ociimage.FindModule(wd)
	if err != nil {
		return err
	}
	c.opts.ModuleDir, c.opts.Stderr = mod, stderr
	if c.out == "dist/mcp-ruleset-server.tar" {
		c.out = filepath.Join(mod, c.out)
	}
	if c.opts.Version == "" {
		c.opts.Version = git(mod, "describe", "--tags", "--always", "--dirty")
	}
	if c.opts.Revision == "" {
		c.opts.Revision = git(mod, "rev-parse", "HEAD")
	}
	if c.opts.Created.IsZero() {
		if s := git(mod, "log", "-1", "--format=%ct"); s != "" {
			if c.opts.Created, err = parseTime(s); err != nil {
				return err
			}
		}
	}
	start := time.Now()
	img, err := ociimage.Build(ctx, c.opts)
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	if c.out != "" {
		if err := ociimage.WriteTarball(c.out, img, c.tag); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s %s (docker load -i %s)\n", c.out, c.tag, digest, c.out)
	}
	if c.oci != "" {
		if err := ociimage.WriteLayout(c.oci, img, c.tag); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: OCI layout, %s %s\n", c.oci, c.tag, digest)
	}
	fmt.Fprintf(stderr, "built in %v\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// git runs git in dir and returns its trimmed output, "" on any failure
// (no git, not a repository).
func git(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
