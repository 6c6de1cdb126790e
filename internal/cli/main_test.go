package cli_test

// End-to-end tests of the two binaries: built once, run as real processes
// over real pipes, HTTP and a real Valkey (or Redis) server.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/valkeytest"
)

// The binaries under test, built by TestMain.
var (
	sudocodeBin      string
	rulesetServerBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bins, err := testkit.Build("./cmd/sudocode", "./cmd/mcp-ruleset-server")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sudocodeBin, rulesetServerBin = bins[0], bins[1]
	return valkeytest.Main(m)
}

// childEnv is the test process's environment without any setting the
// binaries read (VALKEY_*, SUDOCODE_*, XDG_DATA_HOME), with a private data
// dir, plus extra ("KEY=value").
func childEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "VALKEY_") || strings.HasPrefix(kv, "SUDOCODE_") || strings.HasPrefix(kv, "XDG_DATA_HOME=") || strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	// Task worktrees default to the state directory: one of the test's.
	env = append(env, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	return append(env, extra...)
}

// result is a finished process.
type result struct {
	code           int
	stdout, stderr string
}

// runCmd runs bin with args and env to completion, feeding it stdin.
func runCmd(t *testing.T, env []string, stdin string, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(30*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok || ctx.Err() != nil {
			t.Fatalf("%s %s: %v (stderr %q)", filepath.Base(bin), strings.Join(args, " "), err, r.stderr)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// connectStdio starts bin as a stdio MCP server and connects the SDK client.
func connectStdio(t *testing.T, env []string, bin string, args ...string) (*mcp.ClientSession, *testkit.LockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil)
	session, err := client.Connect(ctx, stdioTransport(cmd), nil)
	if err != nil {
		t.Fatalf("connect to %s %s: %v\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr)
	}
	t.Cleanup(func() { closeStdio(t, filepath.Base(bin), session, cmd, stderr) })
	return session, stderr
}

// stdioTransport runs cmd as a stdio MCP server whose Close never signals
// it: closeStdio checks that closing its stdin ends it.
func stdioTransport(cmd *exec.Cmd) *mcp.CommandTransport {
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 24 * time.Hour}
}

// closeStdio closes a session of stdioTransport: closing its stdin must
// end the server, cleanly, by itself. One still running at the test's
// deadline is killed and fails the test.
func closeStdio(t *testing.T, name string, session *mcp.ClientSession, cmd *exec.Cmd, stderr fmt.Stringer) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- session.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("closing the stdio session of %s: %v\nstderr:\n%s", name, err, stderr)
		}
	case <-time.After(testkit.Scale(20 * time.Second)):
		cmd.Process.Kill()
		<-closed
		t.Errorf("waited %v for %s to exit after its stdin closed; killed it\nstderr:\n%s", testkit.Scale(20*time.Second), name, stderr)
		return
	}
	if cmd.ProcessState != nil && !cmd.ProcessState.Success() {
		t.Errorf("%s exited with %v\nstderr:\n%s", name, cmd.ProcessState, stderr)
	}
}

// callText calls a tool and returns its one text and isError.
func callText(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %d contents, want 1", tool, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %s: content is %T, want text", tool, res.Content[0])
	}
	return tc.Text, res.IsError
}

// wantText calls a tool that must succeed with want.
func wantText(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	got, isErr := callText(t, s, tool, args)
	if isErr || got != want {
		t.Errorf("%s: got %q (isError %v), want %q", tool, got, isErr, want)
	}
}

// wantMasked is wantText with every displayed time masked as TIME.
func wantMasked(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	got, isErr := callText(t, s, tool, args)
	if isErr || maskTimes(got) != want {
		t.Errorf("%s:\n got %q (isError %v)\nwant %q", tool, got, isErr, want)
	}
}

// The specification's example ruleset.
const (
	pyName        = "python_style_guide"
	pyDescription = "Python coding style guidelines for team projects"
	pyMarkdown    = "# Python Style Guide\n\n## Naming Conventions\n\n- Use snake_case for functions and variables\n- Use PascalCase for classes\n\n## Imports\n\n- Group imports: standard library, third-party, local\n- Use absolute imports when possible"
)

var pyArgs = map[string]any{
	"name":        pyName,
	"description": pyDescription,
	"tags":        []string{"python", "style", "pep8"},
	"markdown":    pyMarkdown,
}

// displayTime matches the display form of a time in texts.
var displayTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// maskTimes replaces every displayed time with TIME.
func maskTimes(s string) string { return displayTime.ReplaceAllString(s, "TIME") }

// readResource reads a URI and returns its one content.
func readResource(t *testing.T, s *mcp.ClientSession, uri string) (*mcp.ResourceContents, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0], nil
}
