// Package npmtool installs Node.js tools from the npm registry at pinned
// versions into a cache that outlives a test run, for the tests that drive
// real Node programs (the MCP Inspector, the coding-agent CLIs):
//
//	<cache>/npm                                npm's own download cache (npm_config_cache)
//	<cache>/pkgs/<name>@<version>/node_modules one `npm install --prefix` per package
//
// <cache> is $SUDOCODE_NPM_CACHE, or sudocode-npm in the user cache
// directory ($XDG_CACHE_HOME, ~/.cache). A package is installed into a
// directory beside its place and renamed into it when complete, with a
// marker file, so a killed install or two runs at once leave nothing half
// there, and a second run installs nothing.
//
// Node itself comes from npm's node-<os>-<arch> package (the official
// binary, shipped inside the package), because the tools need Node 22 and
// a machine's node may be older. npm (any version that runs) is the one
// thing needed on PATH, and only to install.
package npmtool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// CacheDir is where the packages are kept between runs.
func CacheDir() (string, error) {
	if d := os.Getenv("SUDOCODE_NPM_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the npm packages (set SUDOCODE_NPM_CACHE): %w", err)
	}
	return filepath.Join(base, "sudocode-npm"), nil
}

const installedMarker = ".sudocode-npm-installed"

// Install installs name@version with npm into its own prefix in the cache
// unless it is there already, and returns the prefix. pathDir, when set,
// goes first on npm's PATH (the Node that install scripts run on); env
// adds variables to npm's environment.
func Install(name, version, pathDir string, env ...string) (string, error) {
	root, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "pkgs", strings.ReplaceAll(name, "/", "+")+"@"+version)
	if _, err := os.Stat(filepath.Join(dir, installedMarker)); err == nil {
		return dir, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not on PATH to install %s@%s into %s (Debian: apt-get install npm): %w", name, version, dir, err)
	}
	if err := os.MkdirAll(filepath.Join(root, "npm"), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-save", "--no-package-lock",
		"--no-audit", "--no-fund", "--loglevel=error", name+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(root, "npm"), "npm_config_update_notifier=false")
	if pathDir != "" {
		cmd.Env = append(cmd.Env, "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	cmd.Env = append(cmd.Env, env...)
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

// BinScript is the file of the package's bin named bin under prefix, after
// checking that the installed package is the pinned version.
func BinScript(prefix, name, version, bin string) (string, error) {
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
	if err := json.Unmarshal(pkg.Bin, &bins); err != nil {
		// A bin given as one string is named after the package.
		var one string
		if json.Unmarshal(pkg.Bin, &one) != nil || one == "" {
			return "", fmt.Errorf("%s/package.json: no bin %q in %s", pkgDir, bin, pkg.Bin)
		}
		bins = map[string]string{filepath.Base(name): one}
	}
	if bins[bin] == "" {
		return "", fmt.Errorf("%s/package.json: no bin %q in %s", pkgDir, bin, pkg.Bin)
	}
	return filepath.Join(pkgDir, filepath.FromSlash(bins[bin])), nil
}
