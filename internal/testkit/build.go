package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The binaries built in this test process: each package is built once,
// into one temporary directory that Run removes.
var (
	buildMu sync.Mutex
	binDir  string
	built   = map[string]string{} // package ("./cmd/sudocode") → binary
)

// Build compiles the module's main packages, named from the module root
// ("./cmd/sudocode"), in one go build, and returns their binaries' paths
// in the same order. A package already built by this process is not built
// again.
func Build(pkgs ...string) ([]string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	var todo []string
	for _, p := range pkgs {
		if _, ok := built[p]; !ok && !slices.Contains(todo, p) {
			todo = append(todo, p)
		}
	}
	if len(todo) > 0 {
		if err := build(todo); err != nil {
			return nil, err
		}
	}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = built[p]
	}
	return paths, nil
}

// Binary returns the binary of the module's main package pkg, building it
// on first use; a build failure fails tb.
func Binary(tb testing.TB, pkg string) string {
	tb.Helper()
	paths, err := Build(pkg)
	if err != nil {
		tb.Fatal(err)
	}
	return paths[0]
}

// Run runs the package's tests, then removes the binaries Build made. A
// package that builds binaries calls it from TestMain:
// os.Exit(testkit.Run(m)) (valkeytest.Main calls it too).
func Run(m *testing.M) int {
	code := m.Run()
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		os.RemoveAll(binDir)
		binDir, built = "", map[string]string{}
	}
	return code
}

// build compiles pkgs into binDir; buildMu is held.
func build(pkgs []string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if binDir == "" {
		if binDir, err = os.MkdirTemp("", "sudocode-testbin-"); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", append([]string{"build", "-o", binDir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	for _, p := range pkgs {
		built[p] = filepath.Join(binDir, path.Base(p))
	}
	return nil
}

// moduleRoot is the directory of the go.mod of the package under test.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD: the tests do not run inside a module")
	}
	return filepath.Dir(gomod), nil
}
