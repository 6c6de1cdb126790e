package extcheck

// The Node.js tools the checks drive, installed from the npm registry at
// pinned versions into a cache that outlives a test run:
//
//	<cache>/npm                               npm's own download cache (npm_config_cache)
//	<cache>/pkgs/<name>@<version>/node_modules one `npm install --prefix` per package
//
// <cache> is $SUDOCODE_EXTCHECK_CACHE, or sudocode-extcheck in the user cache
// directory ($XDG_CACHE_HOME, ~/.cache). A package is installed into a
// directory beside its place and renamed into it when complete, with a
// marker file, so a killed install or two runs at once leave nothing half
// there, and a second run installs nothing.
//
// Node comes from npm's node-<os>-<arch> package (the official binary,
// shipped inside the package), because both tools need Node 22 and a
// machine's node may be older. npm itself (any version that runs) is the
// one thing needed on PATH, and only to install. When CI is set, a missing
// npm or a failed install fails the tests; elsewhere they are skipped with
// the reason.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The pinned versions, each checked to work here.
const (
	nodeVersion        = "22.23.3" // the Inspector needs Node >= 22.19
	inspectorPackage   = "@modelcontextprotocol/inspector"
	inspectorVersion   = "2.12.0"
	conformancePackage = "@modelcontextprotocol/conformance"
	conformanceVersion = "0.1.16"
)

// nodeTools are the installed tools: the node binary and the entry
// scripts of the two packages.
type nodeTools struct {
	node        string // Node 22 binary
	inspector   string // the Inspector's mcp-inspector script
	conformance string // the conformance suite's script
	pathDir     string // directory of node, put first on PATH
}

var (
	toolsOnce sync.Once
	tools     *nodeTools
	toolsErr  error
	toolsTime time.Duration
)

// requireTools returns the installed tools, installing them the first
// time; without them the test is skipped, or fails under CI.
func requireTools(t *testing.T) *nodeTools {
	t.Helper()
	toolsOnce.Do(func() {
		start := time.Now()
		tools, toolsErr = setupTools()
		toolsTime = time.Since(start)
	})
	if toolsErr != nil {
		if onCI() {
			t.Fatalf("external MCP clients unavailable (CI is set, so this fails rather than skips): %v", toolsErr)
		}
		t.Skipf("external MCP clients unavailable: %v", toolsErr)
	}
	return tools
}

// onCI tells whether CI is set to a true value.
func onCI() bool {
	v, ok := os.LookupEnv("CI")
	if !ok || v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err != nil || b
}

// cacheDir is where the tools are kept between runs.
func cacheDir() (string, error) {
	if d := os.Getenv("SUDOCODE_EXTCHECK_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the npm packages (set SUDOCODE_EXTCHECK_CACHE): %w", err)
	}
	return filepath.Join(base, "sudocode-extcheck"), nil
}

// nodePackage is npm's package of the Node binary for this platform.
func nodePackage() (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	switch {
	case arch == "":
	case runtime.GOOS == "linux", runtime.GOOS == "darwin":
		return "node-" + runtime.GOOS + "-" + arch, nil
	}
	return "", fmt.Errorf("no npm package of Node for %s/%s", runtime.GOOS, runtime.GOARCH)
}

func setupTools() (*nodeTools, error) {
	root, err := cacheDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(root, "npm"), 0o755); err != nil {
		return nil, err
	}
	nodePkg, err := nodePackage()
	if err != nil {
		return nil, err
	}
	nodeDir, err := install(root, nodePkg, nodeVersion, "")
	if err != nil {
		return nil, err
	}
	tl := &nodeTools{node: filepath.Join(nodeDir, "node_modules", nodePkg, "bin", "node")}
	tl.pathDir = filepath.Dir(tl.node)
	out, err := exec.Command(tl.node, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "v"+nodeVersion {
		return nil, fmt.Errorf("%s --version: %q, %v (want v%s)", tl.node, out, err, nodeVersion)
	}
	// Install the tools with Node 22 first on PATH, so that any install
	// script runs on the Node they are run with.
	dir, err := install(root, inspectorPackage, inspectorVersion, tl.pathDir)
	if err != nil {
		return nil, err
	}
	if tl.inspector, err = binScript(dir, inspectorPackage, inspectorVersion, "mcp-inspector"); err != nil {
		return nil, err
	}
	dir, err = install(root, conformancePackage, conformanceVersion, tl.pathDir)
	if err != nil {
		return nil, err
	}
	if tl.conformance, err = binScript(dir, conformancePackage, conformanceVersion, "conformance"); err != nil {
		return nil, err
	}
	return tl, nil
}

const installedMarker = ".sudocode-extcheck-installed"

// install installs name@version with npm into its own prefix under root
// unless it is there already, and returns the prefix. pathDir, when set,
// goes first on npm's PATH.
func install(root, name, version, pathDir string) (string, error) {
	dir := filepath.Join(root, "pkgs", strings.ReplaceAll(name, "/", "+")+"@"+version)
	if _, err := os.Stat(filepath.Join(dir, installedMarker)); err == nil {
		return dir, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not on PATH to install %s@%s into %s (Debian: apt-get install npm): %w", name, version, dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-save", "--no-package-lock",
		"--no-audit", "--no-fund", "--loglevel=error", name+"@"+version)
	cmd.Dir = tmp
	env := append(os.Environ(), "npm_config_cache="+filepath.Join(root, "npm"),
		"npm_config_update_notifier=false",
		// The Inspector's postinstall only matters in a source checkout.
		"INSPECTOR_SKIP_CLIENT_INSTALL=1")
	if pathDir != "" {
		env = append(env, "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s@%s (after %s): %v\n%s", name, version, time.Since(start).Round(time.Millisecond), err, out.String())
	}
	if err := os.WriteFile(filepath.Join(tmp, installedMarker), []byte(name+"@"+version+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run may have finished the same install first.
		if _, serr := os.Stat(filepath.Join(dir, installedMarker)); serr == nil {
			return dir, nil
		}
		// A directory left without its marker (by hand): replace it.
		if rerr := os.RemoveAll(dir); rerr != nil {
			return "", errors.Join(err, rerr)
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// binScript is the script of the package's bin named bin, after checking
// that the installed package is the pinned version.
func binScript(prefix, name, version, bin string) (string, error) {
	pkgDir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	b, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("%s/package.json: %w", pkgDir, err)
	}
	if pkg.Version != version {
		return "", fmt.Errorf("%s is version %s, want %s", pkgDir, pkg.Version, version)
	}
	var bins map[string]string
	if err := json.Unmarshal(pkg.Bin, &bins); err != nil || bins[bin] == "" {
		return "", fmt.Errorf("%s/package.json: no bin %q in %s", pkgDir, bin, pkg.Bin)
	}
	return filepath.Join(pkgDir, filepath.FromSlash(bins[bin])), nil
}

// env is the environment for a Node tool: the servers' environment with
// Node 22 first on PATH.
func (tl *nodeTools) env(home string) []string {
	env := serverEnv(home)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + tl.pathDir + string(os.PathListSeparator) + kv[len("PATH="):]
			return env
		}
	}
	return append(env, "PATH="+tl.pathDir)
}

// runResult is a finished Node tool.
type runResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// run runs script with args under Node 22 in dir, with HOME set to home.
func (tl *nodeTools) run(t *testing.T, dir, home string, timeout time.Duration, script string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tl.node, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = tl.env(home)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := runResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ctx.Err() != nil {
			t.Fatalf("node %s %s: %v after %s\nstdout:\n%s\nstderr:\n%s", filepath.Base(script), strings.Join(args, " "), err,
				r.took.Round(time.Millisecond), r.stdout, r.stderr)
		}
		r.code = ee.ExitCode()
	}
	return r
}
