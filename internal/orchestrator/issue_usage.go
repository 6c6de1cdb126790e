package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// usageSQL reads the task_usage of each task's result (runResult), for
// the tasks where holds. A result end_task replaced may be any JSON, or
// none: its task counts, without figures.
const usageSQL = `SELECT %KEY%, CASE WHEN json_valid(result) THEN json_extract(result, '$.task_usage') END
FROM tasks WHERE %WHERE%`

// UsageByIssue adds up the usage of every task of each issue in ids (of
// every issue when ids is nil), in one query; an issue without tasks is
// not in the map.
func (s *Store) UsageByIssue(ctx context.Context, ids []string) (map[string]tracker.TaskUsage, error) {
	if ids == nil {
		return s.sumUsage(ctx, "issue_id", "issue_id != ''")
	}
	if len(ids) == 0 {
		return map[string]tracker.TaskUsage{}, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	// One parameter whatever the page's size: SQLite caps their number.
	return s.sumUsage(ctx, "issue_id", "issue_id IN (SELECT value FROM json_each(?))", string(list))
}

// sumUsage adds up the usage of the tasks where holds, by key, in one
// query. The figures are added up here rather than in SQL, where each
// figure parsed the task's result again: twice as slow for a board's page
// (BenchmarkUsageByIssue). Reading the whole result into Go instead would
// copy every final answer.
func (s *Store) sumUsage(ctx context.Context, key, where string, args ...any) (map[string]tracker.TaskUsage, error) {
	q := strings.NewReplacer("%KEY%", key, "%WHERE%", where).Replace(usageSQL)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to add up the tasks' usage")
	}
	defer rows.Close()
	out := map[string]tracker.TaskUsage{}
	for rows.Next() {
		var id string
		var raw sql.NullString
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to add up the tasks' usage")
		}
		var u Usage
		if raw.Valid && json.Unmarshal([]byte(raw.String), &u) != nil {
			u = Usage{} // not a run's usage: the task counts, without figures
		}
		out[id] = addUsage(out[id], u)
	}
	if err := rows.Err(); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to add up the tasks' usage")
	}
	return out, nil
}

// addUsage is sum with one more task, of usage u.
func addUsage(sum tracker.TaskUsage, u Usage) tracker.TaskUsage {
	one := tracker.TaskUsage{Tasks: 1, CostUSD: u.CostUSD}
	if u.CostUSD != nil {
		one.Priced = 1
	}
	if t := u.Tokens; t != nil {
		one.Tokens = &tracker.TokenCounts{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite}
	}
	return mergeUsage(sum, one)
}

// mergeUsage is two sums of usage added up.
func mergeUsage(a, b tracker.TaskUsage) tracker.TaskUsage {
	a.Tasks += b.Tasks
	a.Priced += b.Priced
	if b.CostUSD != nil {
		a.CostUSD = new(deref(a.CostUSD) + *b.CostUSD)
	}
	if t := b.Tokens; t != nil {
		if a.Tokens == nil {
			a.Tokens = &tracker.TokenCounts{}
		}
		a.Tokens.Input += t.Input
		a.Tokens.Output += t.Output
		a.Tokens.CacheRead += t.CacheRead
		a.Tokens.CacheWrite += t.CacheWrite
	}
	return a
}

// IssueUsage adds up the usage of every task of each issue in ids, for
// the dashboard's board and issue page.
func (o *Orchestrator) IssueUsage(ctx context.Context, ids []string) (map[string]tracker.TaskUsage, error) {
	return o.store.UsageByIssue(ctx, ids)
}
