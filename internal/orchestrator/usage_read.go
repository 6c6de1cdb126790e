package orchestrator

import (
	"cmp"
	"context"
	"slices"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TopIssues is how many issues ProjectUsage names: enough to see where
// the money went, few enough for stats to stay a glance.
const TopIssues = 5

// ReadIssueUsage adds up the usage of the tasks started on issueID, from
// the task store of the repository holding dir, only reading it (as
// IssueTasks); nil when the issue has no task.
func ReadIssueUsage(ctx context.Context, dir, issueID string) (*tracker.TaskUsage, error) {
	s, err := readStore(ctx, dir)
	if s == nil || err != nil {
		return nil, err
	}
	defer s.Close()
	m, err := s.UsageByIssue(ctx, []string{issueID})
	if u, ok := m[issueID]; ok && err == nil {
		return &u, nil
	}
	return nil, err
}

// ReadProjectUsage is what every task of the repository holding dir
// cost, and the TopIssues issues that cost the most, read as
// ReadIssueUsage reads; nil when there is no task.
func ReadProjectUsage(ctx context.Context, dir string) (*tracker.ProjectUsage, error) {
	s, err := readStore(ctx, dir)
	if s == nil || err != nil {
		return nil, err
	}
	defer s.Close()
	return s.ProjectUsage(ctx)
}

// ProjectUsage is what every task cost, and the TopIssues issues that
// cost the most; nil when there is no task.
func (s *Store) ProjectUsage(ctx context.Context) (*tracker.ProjectUsage, error) {
	// One read of every task, by issue ("" for tasks on none): the total
	// is the groups added up.
	by, err := s.sumUsage(ctx, "issue_id", "1")
	if len(by) == 0 || err != nil {
		return nil, err
	}
	var total tracker.TaskUsage
	top := make([]tracker.IssueCost, 0, len(by))
	for id, u := range by {
		total = mergeUsage(total, u)
		if id != "" {
			top = append(top, tracker.IssueCost{IssueID: id, TaskUsage: u})
		}
	}
	slices.SortFunc(top, func(a, b tracker.IssueCost) int {
		return cmp.Or(cmp.Compare(costOf(b.TaskUsage), costOf(a.TaskUsage)),
			cmp.Compare(tokensOf(b.TaskUsage), tokensOf(a.TaskUsage)), cmp.Compare(a.IssueID, b.IssueID))
	})
	return &tracker.ProjectUsage{Total: total, TopIssues: top[:min(len(top), TopIssues)]}, nil
}

func costOf(u tracker.TaskUsage) float64 { return deref(u.CostUSD) }

func tokensOf(u tracker.TaskUsage) int64 {
	if u.Tokens == nil {
		return 0
	}
	return u.Tokens.Total()
}
