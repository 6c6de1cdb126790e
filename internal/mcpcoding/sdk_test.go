package mcpcoding_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/goldentest"
	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
)

// profileTools is the catalog (docs/coding-tools.md#scope) in its order, with
// the titles and hints of docs/coding-tools.md#annotations: readOnly,
// destructive, idempotent, openWorld.
var profileTools = []struct {
	name, title string
	hints       [4]bool
}{
	{"read_file", "Read file", [4]bool{true, false, true, false}},
	{"list_dir", "List directory", [4]bool{true, false, true, false}},
	{"list_files", "List files", [4]bool{true, false, true, false}},
	{"search_text", "Search text", [4]bool{true, false, true, false}},
	{"apply_patch", "Apply patch", [4]bool{false, true, false, false}},
	{"exec_command", "Execute command", [4]bool{false, true, false, true}},
	{"write_stdin", "Write stdin", [4]bool{false, false, false, false}},
	{"kill_session", "Kill session", [4]bool{false, true, false, false}},
	{"git_status", "Git status", [4]bool{true, false, true, false}},
	{"git_diff", "Git diff", [4]bool{true, false, true, false}},
	{"request_permissions", "Request permissions", [4]bool{true, false, false, false}},
	{"view_image", "View image", [4]bool{true, false, true, false}},
}

func profileNames(viewImage bool) []string {
	var names []string
	for _, p := range profileTools {
		if p.name != "view_image" || viewImage {
			names = append(names, p.name)
		}
	}
	return names
}

func sdkClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "coding-test", Version: "1"}, nil)
}

// connectHTTP connects the SDK's Streamable HTTP client to a fresh server.
func connectHTTP(t *testing.T, opts mcpcoding.Options, sessOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	_, url := newHTTP(t, opts)
	return connectSDKHTTP(t, url, sessOpts)
}

// connectHTTPAt serves the workspace dir over HTTP and connects the SDK's
// Streamable HTTP client to it.
func connectHTTPAt(t *testing.T, dir string, opts mcpcoding.Options) *mcp.ClientSession {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.FS.Close() })
	if opts.Version == "" {
		opts.Version = testVersion
	}
	s := mcpcoding.New(root, opts)
	t.Cleanup(func() { s.Close(context.Background()) })
	srv := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(srv.Close)
	return connectSDKHTTP(t, srv.URL+"/mcp", nil)
}

func connectSDKHTTP(t *testing.T, url string, sessOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdkClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, sessOpts)
	if err != nil {
		t.Fatalf("SDK client over HTTP: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectBinary starts the built binary on stdio over a fresh workspace
// and connects the SDK client to it. It returns the session and the
// workspace directory.
func connectBinary(t *testing.T, env []string, args ...string) (*mcp.ClientSession, string, *testkit.LockedBuffer) {
	t.Helper()
	dir := t.TempDir()
	cs, stderr := connectBinaryAt(t, dir, env, args...)
	return cs, dir, stderr
}

// connectBinaryAt starts the built binary on stdio over the workspace dir
// and connects the SDK client to it.
func connectBinaryAt(t *testing.T, dir string, env []string, args ...string) (*mcp.ClientSession, *testkit.LockedBuffer) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"--stdio", "--workspace", dir}, args...)...)
	cmd.Env = childEnv(env...)
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdkClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("SDK client over the binary's stdio: %v\nstderr: %s", err, stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing the stdio session: %v\nstderr: %s", err, stderr)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("binary did not exit cleanly at EOF: %v\nstderr: %s", cmd.ProcessState, stderr)
		}
	})
	return cs, stderr
}

// sdkTransports runs f over the SDK client on HTTP and on the binary.
func sdkTransports(t *testing.T, dangerous bool, f func(t *testing.T, cs *mcp.ClientSession)) {
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		f(t, connectHTTP(t, mcpcoding.Options{ViewImage: true, Dangerous: dangerous}, nil))
	})
	t.Run("binary", func(t *testing.T) {
		t.Parallel()
		var args []string
		if dangerous {
			args = append(args, "--dangerously-skip-all-permissions")
		}
		cs, _, _ := connectBinary(t, nil, args...)
		f(t, cs)
	})
}

func TestSDKInitialize(t *testing.T) {
	t.Parallel()
	// The SDK's client asks for 2026-07-28 first (server/discover); one
	// asking for 2025-06-18 shakes hands.
	check := func(t *testing.T, cs *mcp.ClientSession, version string) {
		r := cs.InitializeResult()
		if r == nil || r.ProtocolVersion != version {
			t.Fatalf("negotiated %+v, want %s", r, version)
		}
		if r.ServerInfo == nil || r.ServerInfo.Name != "coding-tools-mcp" || r.ServerInfo.Title != "Coding Tools MCP" {
			t.Fatalf("serverInfo %+v", r.ServerInfo)
		}
		c := r.Capabilities
		//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
		if c == nil || c.Tools == nil || c.Tools.ListChanged || c.Logging == nil ||
			c.Prompts != nil || c.Resources != nil || c.Completions != nil {
			t.Fatalf("capabilities %+v", c)
		}
		if _, err := cs.ListPrompts(context.Background(), nil); err == nil {
			t.Fatal("prompts/list answered")
		}
		// ping and logging/setLevel are the handshake revisions' (2026-07-28
		// removes them, SEP-2575 and SEP-2577: a request names its log level).
		if version == "2026-07-28" {
			return
		}
		if err := cs.Ping(context.Background(), nil); err != nil {
			t.Fatalf("ping: %v", err)
		}
		//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatalf("logging/setLevel: %v", err)
		}
		//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "loud"}); err == nil {
			t.Fatal("logging/setLevel loud accepted")
		}
	}
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		check(t, connectHTTP(t, mcpcoding.Options{}, nil), "2026-07-28")
	})
	t.Run("http asking 2025-06-18", func(t *testing.T) {
		t.Parallel()
		check(t, connectHTTP(t, mcpcoding.Options{}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}), "2025-06-18")
	})
	t.Run("binary", func(t *testing.T) {
		t.Parallel()
		cs, _, stderr := connectBinary(t, nil)
		check(t, cs, "2026-07-28")
		if s := stderr.String(); strings.Contains(s, `"jsonrpc"`) {
			t.Fatalf("JSON-RPC on stderr: %s", s)
		}
	})
}

// TestSDKToolsList: the catalog's names, order, titles, hints and schema
// shapes, as an off-the-shelf client sees them.
func TestSDKToolsList(t *testing.T) {
	t.Parallel()
	sdkTransports(t, false, func(t *testing.T, cs *mcp.ClientSession) { checkCatalog(t, cs, true) })
	t.Run("http without view_image", func(t *testing.T) {
		t.Parallel()
		checkCatalog(t, connectHTTP(t, mcpcoding.Options{ViewImage: false}, nil), false)
	})
	t.Run("binary with CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE=0", func(t *testing.T) {
		t.Parallel()
		cs, _, _ := connectBinary(t, []string{"CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE=0"})
		checkCatalog(t, cs, false)
	})
	t.Run("binary with --enable-view-image=false", func(t *testing.T) {
		t.Parallel()
		cs, _, _ := connectBinary(t, nil, "--enable-view-image=false")
		checkCatalog(t, cs, false)
	})
	t.Run("binary: the flag wins over the environment", func(t *testing.T) {
		t.Parallel()
		cs, _, _ := connectBinary(t, []string{"CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE=0"}, "--enable-view-image")
		checkCatalog(t, cs, true)
	})
}

func checkCatalog(t *testing.T, cs *mcp.ClientSession, viewImage bool) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatalf("nextCursor %q", res.NextCursor)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if want := profileNames(viewImage); !slices.Equal(names, want) {
		t.Fatalf("tools = %v\nwant    %v", names, want)
	}
	for i, tl := range res.Tools {
		p := profileTools[i]
		if tl.Title != p.title || tl.Annotations == nil || tl.Annotations.Title != p.title {
			t.Errorf("%s: title %q, annotations %+v, want %q", tl.Name, tl.Title, tl.Annotations, p.title)
			continue
		}
		a := tl.Annotations
		if a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: destructiveHint/openWorldHint not explicit", tl.Name)
			continue
		}
		if got := [4]bool{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}; got != p.hints {
			t.Errorf("%s: hints (readOnly, destructive, idempotent, openWorld) = %v, want %v", tl.Name, got, p.hints)
		}
		if d := strings.TrimSpace(tl.Description); d == "" || strings.Contains(d, "\n") {
			t.Errorf("%s: description %q is not one sentence", tl.Name, tl.Description)
		}
		in := asMap(t, tl.InputSchema)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: inputSchema type %v, additionalProperties %v", tl.Name, in["type"], in["additionalProperties"])
		}
		req, hasReq := in["required"].([]any)
		if !hasReq {
			t.Errorf("%s: inputSchema.required missing (%#v)", tl.Name, in["required"])
		}
		props, _ := in["properties"].(map[string]any)
		if props == nil {
			t.Errorf("%s: inputSchema has no properties", tl.Name)
		}
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				t.Errorf("%s: required %v is not a property", tl.Name, r)
			}
		}
		out := asMap(t, tl.OutputSchema)
		if out["type"] != "object" {
			t.Errorf("%s: outputSchema type %v", tl.Name, out["type"])
		}
		if oreq, _ := out["required"].([]any); !slices.Contains(oreq, any("ok")) {
			t.Errorf("%s: outputSchema.required %v lacks ok", tl.Name, out["required"])
		}
		if _, has := out["additionalProperties"]; has {
			t.Errorf("%s: outputSchema sets additionalProperties", tl.Name)
		}
		oprops, _ := out["properties"].(map[string]any)
		for _, k := range []string{"ok", "warnings", "error"} {
			if _, has := oprops[k]; !has {
				t.Errorf("%s: outputSchema does not declare %s", tl.Name, k)
			}
		}
	}
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	return m
}

// TestSDKRequestPermissions: request_permissions
// (docs/coding-tools.md#permissions) through the SDK client.
func TestSDKRequestPermissions(t *testing.T) {
	t.Parallel()
	args := map[string]any{"tool_name": "apply_patch", "permission": "write_generated_or_ignored",
		"reason": "regenerate", "arguments": map[string]any{"patch": "*** Begin Patch"}, "scope": "session", "ttl_seconds": 60}
	wantRequested := map[string]any{"tool_name": "apply_patch", "permission": "write_generated_or_ignored",
		"reason": "regenerate", "arguments": map[string]any{"patch": "*** Begin Patch"}, "scope": "session", "ttl_seconds": 60.0}
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		sdkTransports(t, false, func(t *testing.T, cs *mcp.ClientSession) {
			sc := sdkCall(t, cs, "request_permissions", args)
			if sc["ok"] != false || sc["status"] != "unsupported" || sc["grant_id"] != nil || sc["expires_at"] != nil {
				t.Fatalf("result %v", sc)
			}
			e := sc["error"].(map[string]any)
			if e["code"] != "ELICITATION_UNSUPPORTED" || e["category"] != "permission" || e["retryable"] != false {
				t.Fatalf("error %v", e)
			}
			if got := e["details"].(map[string]any)["requested"]; !reflect.DeepEqual(got, wantRequested) {
				t.Fatalf("details.requested = %v, want %v", got, wantRequested)
			}
		})
	})
	t.Run("dangerous", func(t *testing.T) {
		t.Parallel()
		sdkTransports(t, true, func(t *testing.T, cs *mcp.ClientSession) {
			sc := sdkCall(t, cs, "request_permissions", args)
			if sc["ok"] != true || sc["status"] != "granted" || sc["grant_id"] != "dangerously-skip-all-permissions" || sc["expires_at"] != nil {
				t.Fatalf("result %v", sc)
			}
			cons := sc["constraints"].(map[string]any)
			if cons["mode"] != "dangerously_skip_all_permissions" || !reflect.DeepEqual(cons["requested"], wantRequested) {
				t.Fatalf("constraints %v", cons)
			}
			if len(sc["warnings"].([]any)) == 0 {
				t.Fatal("no warning in dangerous mode")
			}
		})
	})
	t.Run("schema violation is a protocol error", func(t *testing.T) {
		t.Parallel()
		sdkTransports(t, false, func(t *testing.T, cs *mcp.ClientSession) {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_permissions",
				Arguments: map[string]any{"tool_name": "exec_command"}})
			if err == nil || !strings.Contains(err.Error(), "permission") {
				t.Fatalf("err = %v, want a -32602 naming the argument", err)
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil {
				t.Fatal("unknown tool accepted")
			}
		})
	})
}

// sdkCall calls a tool and checks the result invariants (mirror, isError,
// warnings); it returns structuredContent.
func sdkCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	return sdkResult(t, cs, name, args).StructuredContent
}

// sdkResult calls a tool through the SDK client and checks the result
// invariants (checkResult, and the SDK's isError against ok).
func sdkResult(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) toolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var r toolResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.IsError == nil { // the SDK omits isError when false
		r.IsError = new(false)
	}
	checkResult(t, r)
	if res.IsError != (r.StructuredContent["ok"] == false) {
		t.Fatalf("isError %v with ok %v", res.IsError, r.StructuredContent["ok"])
	}
	return r
}

// TestBinaryWorkspaceFlagWins: --workspace beats CODING_TOOLS_MCP_WORKSPACE
// and the root is canonical (seen through the dangerous grant's
// constraints).
func TestBinaryWorkspaceFlagWins(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	cs, dir, stderr := connectBinary(t, []string{"CODING_TOOLS_MCP_WORKSPACE=" + other}, "--dangerously-skip-all-permissions")
	sc := sdkCall(t, cs, "request_permissions", map[string]any{"tool_name": "exec_command", "permission": "network",
		"reason": "r", "arguments": map[string]any{}})
	canon, _ := filepath.EvalSymlinks(dir)
	if ws := sc["constraints"].(map[string]any)["workspace"]; ws != canon {
		t.Fatalf("workspace %v, want %s", ws, canon)
	}
	if !strings.Contains(stderr.String(), "dangerously-skip-all-permissions") {
		t.Fatalf("dangerous mode printed no warning on stderr: %q", stderr)
	}

	// Without the flag the environment's workspace is used.
	cmd := exec.Command(binPath, "--stdio", "--dangerously-skip-all-permissions")
	cmd.Env = childEnv("CODING_TOOLS_MCP_WORKSPACE=" + other)
	cmd.Dir = dir
	cs2, err := sdkClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	sc = sdkCall(t, cs2, "request_permissions", map[string]any{"tool_name": "exec_command", "permission": "network",
		"reason": "r", "arguments": map[string]any{}})
	canonOther, _ := filepath.EvalSymlinks(other)
	if ws := sc["constraints"].(map[string]any)["workspace"]; ws != canonOther {
		t.Fatalf("workspace %v, want %s from the environment", ws, canonOther)
	}
}

// TestToolsGolden pins tools/list as the wire carries it: a change of a
// name, description, schema or annotation is a visible diff of
// testdata/tools.golden.json. Refresh it with:
//
//	go test ./internal/mcpcoding -run TestToolsGolden -update
func TestToolsGolden(t *testing.T) {
	t.Parallel()
	_, url := newHTTP(t, mcpcoding.Options{ViewImage: true})
	c := &httpClient{url: url}
	initialize(t, c)
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(call(t, c, "tools/list", nil).Result, &res); err != nil {
		t.Fatal(err)
	}
	// Every hint is an explicit boolean on the wire.
	for _, raw := range res.Tools {
		var tl struct {
			Name         string                     `json:"name"`
			Annotations  map[string]json.RawMessage `json:"annotations"`
			InputSchema  any                        `json:"inputSchema"`
			OutputSchema any                        `json:"outputSchema"`
		}
		json.Unmarshal(raw, &tl)
		goldentest.NoBooleanSchemas(t, tl.Name+" input", tl.InputSchema)
		goldentest.NoBooleanSchemas(t, tl.Name+" output", tl.OutputSchema)
		for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if v := string(tl.Annotations[h]); v != "true" && v != "false" {
				t.Errorf("%s: annotations.%s = %q, want an explicit boolean", tl.Name, h, v)
			}
		}
	}
	goldentest.JSON(t, "testdata/tools.golden.json", res.Tools)
	// The binary lists the same catalog.
	cs, _, _ := connectBinary(t, nil)
	bres, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bres.Tools) != len(res.Tools) {
		t.Fatalf("binary lists %d tools, the server %d", len(bres.Tools), len(res.Tools))
	}
	for i, tl := range bres.Tools {
		var w map[string]any
		json.Unmarshal(res.Tools[i], &w)
		if !reflect.DeepEqual(asMap(t, tl.InputSchema), w["inputSchema"]) || !reflect.DeepEqual(asMap(t, tl.OutputSchema), w["outputSchema"]) {
			t.Fatalf("%s: the binary's schemas differ from the server's", tl.Name)
		}
	}
}
