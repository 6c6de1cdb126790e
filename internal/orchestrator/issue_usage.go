package orchestrator

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// usageSQL adds up the task_usage of each run's result (runResult) in
// SQLite, so that the board's page of cards costs one query however many
// tasks there are. A result end_task replaced may be any JSON, or none:
// only a number is a cost, only an object tokens.
const usageSQL = `SELECT %KEY%, count(*),
	count(CASE WHEN json_type(r, '$.task_usage.cost_usd') IN ('integer', 'real') THEN 1 END),
	total(CASE WHEN json_type(r, '$.task_usage.cost_usd') IN ('integer', 'real') THEN json_extract(r, '$.task_usage.cost_usd') END),
	count(CASE WHEN json_type(r, '$.task_usage.tokens') = 'object' THEN 1 END),
	coalesce(sum(CAST(json_extract(r, '$.task_usage.tokens.input') AS INTEGER)), 0),
	coalesce(sum(CAST(json_extract(r, '$.task_usage.tokens.output') AS INTEGER)), 0),
	coalesce(sum(CAST(json_extract(r, '$.task_usage.tokens.cache_read') AS INTEGER)), 0),
	coalesce(sum(CAST(json_extract(r, '$.task_usage.tokens.cache_write') AS INTEGER)), 0)
FROM (SELECT issue_id, CASE WHEN json_valid(result) THEN result END AS r FROM tasks WHERE %WHERE%)
GROUP BY %KEY%`

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

// UsageTotal adds up the usage of every task, on an issue or not; nil
// when there is none.
func (s *Store) UsageTotal(ctx context.Context) (*tracker.TaskUsage, error) {
	m, err := s.sumUsage(ctx, "''", "1")
	if err != nil {
		return nil, err
	}
	if u, ok := m[""]; ok {
		return &u, nil
	}
	return nil, nil
}

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
		var u tracker.TaskUsage
		var cost float64
		var withTokens int
		var tok tracker.TokenCounts
		if err := rows.Scan(&id, &u.Tasks, &u.Priced, &cost, &withTokens, &tok.Input, &tok.Output, &tok.CacheRead, &tok.CacheWrite); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "failed to add up the tasks' usage")
		}
		if u.Priced > 0 {
			u.CostUSD = &cost
		}
		if withTokens > 0 {
			u.Tokens = &tok
		}
		out[id] = u
	}
	if err := rows.Err(); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to add up the tasks' usage")
	}
	return out, nil
}

// IssueUsage adds up the usage of every task of each issue in ids, for
// the dashboard's board and issue page.
func (o *Orchestrator) IssueUsage(ctx context.Context, ids []string) (map[string]tracker.TaskUsage, error) {
	return o.store.UsageByIssue(ctx, ids)
}
