package store

import (
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// counts is the tally table read whole: a few dozen rows, whatever the
// tracker's size.
type counts map[string]int

func (v view) tallies() (counts, error) {
	rows, err := v.q.QueryContext(v.ctx, `SELECT k, n FROM tally`)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	c := counts{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, cacheErr(err)
		}
		c[k] = n
	}
	return c, cacheErr(rows.Err())
}

// by returns the counts under prefix by the rest of the key, with every
// known value present, and their total.
func (c counts) by(prefix string, known []string) (map[string]int, int) {
	out := map[string]int{}
	for _, k := range known {
		out[k] = 0
	}
	total := 0
	for k, n := range c {
		if rest, ok := strings.CutPrefix(k, prefix); ok && n != 0 {
			out[rest] += n
			total += n
		}
	}
	return out, total
}

// byStatus counts table's rows by status (blocked or not), with every
// known status present, and their total.
func byStatus[T ~string](c counts, table string, known []T) (map[string]int, int) {
	out := map[string]int{}
	for _, k := range known {
		out[string(k)] = 0
	}
	total := 0
	for k, n := range c {
		rest, ok := strings.CutPrefix(k, table+".state:")
		if !ok || n == 0 {
			continue
		}
		out[rest[:strings.LastIndexByte(rest, ':')]] += n
		total += n
	}
	return out, total
}

// state is the count of table's rows with status st and the blocked flag.
func (c counts) state(table, st string, blocked bool) int {
	flag := "0"
	if blocked {
		flag = "1"
	}
	return c[table+".state:"+st+":"+flag]
}

// ready counts table's rows in a ready status with no unfinished blocker.
func ready[T ~string](c counts, table string, statuses []T) int {
	n := 0
	for _, st := range statuses {
		n += c.state(table, string(st), false)
	}
	return n
}

// blockedIssues counts unfinished issues that something blocks or whose
// status is blocked.
func (c counts) blockedIssues() int {
	n := c.state("issues", string(tracker.IssueBlocked), false)
	for _, st := range tracker.IssueStatuses {
		if !st.Done() {
			n += c.state("issues", string(st), true)
		}
	}
	return n
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
