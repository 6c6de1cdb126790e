package npmtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// NodeVersion is the pinned Node: the MCP Inspector needs >= 22.19 and
// Claude Code >= 22.
const NodeVersion = "22.23.3"

// Node is an installed Node binary.
type Node struct {
	Bin     string // the node executable
	PathDir string // its directory, to put first on PATH
}

var (
	nodeOnce sync.Once
	node     *Node
	nodeErr  error
)

// InstallNode returns Node NodeVersion, installing it the first time.
func InstallNode() (*Node, error) {
	nodeOnce.Do(func() { node, nodeErr = installNode() })
	return node, nodeErr
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

func installNode() (*Node, error) {
	pkg, err := nodePackage()
	if err != nil {
		return nil, err
	}
	dir, err := Install(pkg, NodeVersion, "")
	if err != nil {
		return nil, err
	}
	n := &Node{Bin: filepath.Join(dir, "node_modules", pkg, "bin", "node")}
	n.PathDir = filepath.Dir(n.Bin)
	out, err := exec.Command(n.Bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "v"+NodeVersion {
		return nil, fmt.Errorf("%s --version: %q, %v (want v%s)", n.Bin, out, err, NodeVersion)
	}
	return n, nil
}

// Env is env with this Node's directory put first on PATH.
func (n *Node) Env(env []string) []string {
	out := append([]string(nil), env...)
	for i, kv := range out {
		if strings.HasPrefix(kv, "PATH=") {
			out[i] = "PATH=" + n.PathDir + string(os.PathListSeparator) + kv[len("PATH="):]
			return out
		}
	}
	return append(out, "PATH="+n.PathDir)
}
