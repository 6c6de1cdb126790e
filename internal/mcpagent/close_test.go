package mcpagent_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpagent"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// goroutinesIn is how many goroutines are running a function of this
// package (its watchers), as a stack dump names them.
func goroutinesIn() int {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	return strings.Count(stacks, "internal/mcpagent.watchPeers") + strings.Count(stacks, "internal/mcpagent.(*watcher).send")
}

// Close stops what the server started to follow the tasks, the watch of
// other instances' changes included: nothing of it outlives the server.
func TestCloseStopsTheServersGoroutines(t *testing.T) {
	ctx := context.Background()
	store, err := orchestrator.OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	orch := orchestrator.New(store, lookup, orchestrator.Options{Repo: testkit.Repo(t), NoPool: true})
	t.Cleanup(func() { orch.Close(); store.Close() })
	lp := follow(t, orch)
	before := goroutinesIn()
	server := mcpagent.New(lp, mcpagent.Options{Version: "test", Shared: true})
	testkit.WaitFor(t, testkit.Scale(time.Minute), "the server's watchers to start", func() bool { return goroutinesIn() == before+2 })
	server.Close()
	if n := goroutinesIn(); n != before {
		t.Fatalf("%d watcher goroutines after Close, %d before New", n, before)
	}
}
