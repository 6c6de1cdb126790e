package dashboard_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// BenchmarkBoard10000Costs is BenchmarkBoard10000 beside a task store of
// 4,000 finished tasks, two on every fifth issue, each with its runs'
// usage: a page's cards get their costs in one query, however many tasks
// and issues there are. Reported besides: the cards with a cost.
func BenchmarkBoard10000Costs(b *testing.B) {
	benchBoard(b, func(f *fixture, ids []string) dashboard.Options {
		ctx := context.Background()
		st, err := orchestrator.OpenStore(ctx, filepath.Join(f.dir, ".git", "sudocode"))
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now().UTC()
		for i := 0; i < len(ids); i += 5 {
			for k, status := range []orchestrator.Status{orchestrator.StatusFailed, orchestrator.StatusCompleted} {
				res := fmt.Sprintf(`{"outcome":"x","task_usage":{"cost_usd":0.%02d,"tokens":{"input":%d,"output":50,"cache_read":0,"cache_write":0}}}`, i%100, 1000+i)
				t := orchestrator.Task{ID: fmt.Sprintf("t%05d%d", i, k), Agent: "CLAUDECODE", Branch: "b", Status: status,
					Result: []byte(res), IssueID: ids[i], CreatedAt: now, UpdatedAt: now}
				if err := st.Put(ctx, t); err != nil {
					b.Fatal(err)
				}
			}
		}
		o := orchestrator.New(st, commandOnly, orchestrator.Options{Repo: f.dir, Actor: "tester", Grace: time.Second, Worktrees: b.TempDir()})
		b.Cleanup(func() {
			o.Close()
			st.Close()
		})
		return dashboard.Options{Tasks: o}
	})
}
