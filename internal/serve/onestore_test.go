package serve_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestOneTrackerStoreForEverySurface: the tracker's MCP server and the
// dashboard of one serve process use one store of the project's tracker
// (one writer, one cache connection), not one each: as many handles on
// the cache as a single store holds, after both have read and written.
func TestOneTrackerStoreForEverySurface(t *testing.T) {
	dir := project(t)
	site, _ := start(t, dir, serve.Options{})
	s, err := connect(t, site.URL+serve.PathTracker, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_issue", Arguments: map[string]any{"title": "through MCP"}})
	if err != nil || res.IsError {
		t.Fatalf("create_issue: %v %+v", err, res)
	}
	resp, err := withToken(t, "GET", site.URL+"/api/issues", "")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the dashboard's issues: %d %s", resp.StatusCode, body)
	}
	resp, err = withToken(t, "POST", site.URL+"/api/issues", `{"title": "through the page"}`)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("the dashboard's create: %d %s", resp.StatusCode, body)
	}

	// What one store holds, measured on another project in this process.
	other := project(t)
	r, err := store.Open(context.Background(), filepath.Join(other, store.DirName), "test")
	if err != nil {
		t.Fatal(err)
	}
	r.KeepStatements()
	if _, err := r.Stats(context.Background()); err != nil {
		t.Fatal(err)
	}
	one := cacheHandles(t, other)
	r.Close()
	if one == 0 {
		t.Fatal("a store holds no handle on its cache: the count measures nothing")
	}
	if got := cacheHandles(t, dir); got != one {
		t.Errorf("serve holds %d handles on the tracker's cache after its surfaces used it, a single store %d: more than one store is open", got, one)
	}
}

// cacheHandles counts this process's open files that are the cache of
// the tracker in project.
func cacheHandles(t *testing.T, project string) int {
	t.Helper()
	cache := filepath.Join(project, store.DirName, "cache.db")
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("this test counts open files in /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == cache {
			n++
		}
	}
	return n
}
