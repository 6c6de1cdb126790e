package extcheck

// The Node.js tools the checks drive, installed from the npm registry at
// pinned versions, with the Node 22 they need, by internal/npmtool into its
// cache. When CI is set, a missing npm or a failed install fails the tests;
// elsewhere they are skipped with the reason.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/npmtool"
	"github.com/sudocode/sudocode/internal/testkit"
)

// The pinned versions, each checked to work here.
const (
	nodeVersion        = npmtool.NodeVersion
	inspectorPackage   = "@modelcontextprotocol/inspector"
	inspectorVersion   = "2.12.0"
	conformancePackage = "@modelcontextprotocol/conformance"
	conformanceVersion = "0.1.16"
	// requirementsVersion is the first release of the suite that runs a
	// revision's requirements (--requirements 2026-07-28); the latest
	// stable one (above) predates it.
	requirementsVersion = "0.2.0-alpha.12"
)

// nodeTools are the installed tools: the node binary and the entry
// scripts of the two packages.
type nodeTools struct {
	node        string // Node 22 binary
	inspector   string // the Inspector's mcp-inspector script
	conformance string // the conformance suite's script
	// requirements is the suite's script at requirementsVersion.
	requirements string
	pathDir      string // directory of node, put first on PATH
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
		testkit.Missing(t, "external MCP clients unavailable (they need npm: apt-get install -y npm): %v", toolsErr)
	}
	return tools
}

func setupTools() (*nodeTools, error) {
	n, err := npmtool.InstallNode()
	if err != nil {
		return nil, err
	}
	tl := &nodeTools{node: n.Bin, pathDir: n.PathDir}
	// Install the tools with Node 22 first on PATH, so that any install
	// script runs on the Node they are run with. The Inspector's
	// postinstall only matters in a source checkout.
	dir, err := npmtool.Install(inspectorPackage, inspectorVersion, tl.pathDir, "INSPECTOR_SKIP_CLIENT_INSTALL=1")
	if err != nil {
		return nil, err
	}
	if tl.inspector, err = npmtool.BinScript(dir, inspectorPackage, inspectorVersion, "mcp-inspector"); err != nil {
		return nil, err
	}
	dir, err = npmtool.Install(conformancePackage, conformanceVersion, tl.pathDir)
	if err != nil {
		return nil, err
	}
	if tl.conformance, err = npmtool.BinScript(dir, conformancePackage, conformanceVersion, "conformance"); err != nil {
		return nil, err
	}
	if dir, err = npmtool.Install(conformancePackage, requirementsVersion, tl.pathDir); err != nil {
		return nil, err
	}
	if tl.requirements, err = npmtool.BinScript(dir, conformancePackage, requirementsVersion, "conformance"); err != nil {
		return nil, err
	}
	return tl, nil
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
