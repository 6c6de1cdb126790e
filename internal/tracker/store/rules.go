package store

import (
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// The readiness rules in SQL, generated from the domain's sets
// (tracker/rules.go), so that the queries and the Go rules cannot drift.
var (
	blockingSQL   = in("type", tracker.BlockingRelTypes)     // a link that gates readiness
	issueDoneSQL  = in("status", tracker.DoneIssueStatuses)  // an issue that blocks nothing
	specDoneSQL   = in("status", tracker.DoneSpecStatuses)   // a spec that blocks nothing
	issueReadySQL = in("status", tracker.ReadyIssueStatuses) // an issue that can be ready
	specReadySQL  = in("status", tracker.ReadySpecStatuses)  // a spec that can be ready
)

// The issues and specs that blocked lists, from the cache's blocked flags
// (blocked.go): unfinished, with an unfinished blocker; an issue whose
// status is blocked counts even when no link explains it. Each is also the
// condition of a partial index (schema.go), which a query uses only when
// its WHERE holds the same terms.
var (
	issueBlockedSQL = `NOT ` + issueDoneSQL + ` AND (blocked = 1 OR status = '` + string(tracker.IssueBlocked) + `')`
	specBlockedSQL  = `NOT ` + specDoneSQL + ` AND blocked = 1`
)

// The ready and blocked issues, in ready's order.
var (
	readyIssuesSQL   = `SELECT id FROM issues WHERE ` + issueReadySQL + ` AND blocked = 0 ORDER BY priority, created_ns, id`
	blockedIssuesSQL = `SELECT id FROM issues WHERE ` + issueBlockedSQL + ` ORDER BY priority, created_ns, id`
)

// in is the condition "col is one of vs", parenthesised; the values are
// the domain's constants, quoted as SQL strings.
func in[T ~string](col string, vs []T) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	}
	return "(" + col + " IN (" + strings.Join(q, ", ") + "))"
}
