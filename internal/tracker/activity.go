package tracker

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// An issue's activity is its comments and the history of its changes
// (status, assignee, links, the agent tasks that worked it). Both are
// append-only records kept beside the other records, in shard files of
// their own:
//
//	records/activity/3f.jsonl  the activity of issues whose id hashes to shard 3f
//
// The shard is the issue's (ShardOf of the issue id), so an issue's
// activity is one small file away, and a change appends one line to it
// instead of rewriting anything. Records have unique random ids and are
// never edited in place by the tracker, so the merge driver merges two
// branches' activity as the union of their records. The activity is not
// in the cache: it is read from its shard when an issue is shown.
const ActivityDir = "activity"

// ActivityRecords is the kind of the activity shards. It is a kind for the
// merge driver, not one of RecordKinds, which are the kinds the cache
// indexes.
const ActivityRecords RecordKind = FeedbackRecords + 1

// The types of activity record.
const (
	ActivityComment = "comment"
	ActivityChange  = "change"
)

// The fields a change records.
const (
	ChangeStatus   = "status"
	ChangeAssignee = "assignee"
	ChangeLink     = "link" // from/to: "FROM TYPE TO", the link removed / added
	ChangeTask     = "task" // to: what happened to the task (TaskEvents); task_id names it
)

// TaskEvents are what a task change records of an agent task on the
// issue: it started, went on after a fleet's worker that ran it was lost
// (resumed: another worker took the run up from the work the lost one
// had saved; restarted: from the task's branch, none saved), or how it
// ended.
var TaskEvents = []string{"started", "resumed", "restarted", "merged", "failed", "cancelled", "ended"}

// ChangeFields lists the fields a change may record.
var ChangeFields = []string{ChangeStatus, ChangeAssignee, ChangeLink, ChangeTask}

// Limits on what an activity record may hold, checked on input and on
// every line read from the files (which come from git, so from anyone).
const (
	MaxCommentBytes = 64 << 10 // a comment's markdown body
	MaxActorBytes   = 200
	MaxChangeBytes  = 1000 // a change's from or to
	maxActivityID   = 100
)

// ActivityRecord is one line of an activity shard: a comment or a change.
// Optional fields are left out of the line when absent, to keep the
// append-only files short.
type ActivityRecord struct {
	ID        string     `json:"id"`
	IssueID   string     `json:"issue_id"`
	Type      string     `json:"type"` // comment or change
	Actor     string     `json:"actor"`
	At        time.Time  `json:"at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"` // a comment edited
	Body      *string    `json:"body,omitempty"`       // a comment's markdown
	Field     *string    `json:"field,omitempty"`      // a change's field (ChangeFields)
	From      *string    `json:"from,omitempty"`       // a change's old value, absent for none
	To        *string    `json:"to,omitempty"`         // a change's new value, absent for none
	TaskID    *string    `json:"task_id,omitempty"`    // the task of a task change
}

// Comment is a comment on an issue, as show returns it.
type Comment struct {
	ID        string    `json:"id" jsonschema:"The comment's id"`
	IssueID   string    `json:"issue_id" jsonschema:"The issue commented on"`
	Author    string    `json:"author" jsonschema:"Who wrote it"`
	Body      string    `json:"body" jsonschema:"The comment (markdown)"`
	CreatedAt time.Time `json:"created_at" jsonschema:"When it was written"`
	UpdatedAt time.Time `json:"updated_at" jsonschema:"When it was last edited (= created_at when never)"`
}

// HistoryEvent is one change of an issue, as show returns it.
type HistoryEvent struct {
	ID      string    `json:"id" jsonschema:"The event's id"`
	IssueID string    `json:"issue_id" jsonschema:"The issue changed"`
	At      time.Time `json:"at" jsonschema:"When"`
	Actor   string    `json:"actor" jsonschema:"Who made the change"`
	Field   string    `json:"field" jsonschema:"status, assignee, link or task"`
	From    *string   `json:"from" jsonschema:"The old value (a link: 'FROM TYPE TO' removed; a task: null); null for none"`
	To      *string   `json:"to" jsonschema:"The new value (a link: 'FROM TYPE TO' added; a task: started, resumed, restarted, merged, failed, cancelled or ended); null for none"`
	TaskID  *string   `json:"task_id" jsonschema:"The agent task, for a task event; else null"`
}

// CommentID and ChangeID are the id forms of activity records:
// prefix-c-hash and prefix-h-hash. The hash is long (12 base36
// characters) because activity is not counted, so its ids cannot grow on
// a collision as issue ids do, and it is numerous.
func CommentID(prefix, uuid string) string { return prefix + "-c-" + Hash(uuid, activityHashLen) }
func ChangeID(prefix, uuid string) string  { return prefix + "-h-" + Hash(uuid, activityHashLen) }

const activityHashLen = 12

// ActivityFile is the path, relative to the tracker's directory and with
// slashes, of the shard holding issue id's activity.
func ActivityFile(issueID string) string {
	return path.Join(RecordsDir, ActivityDir, ShardOf(issueID)+".jsonl")
}

// IsActivityFile reports whether p (slashes or not, relative to any
// directory) is an activity shard records/activity/<xx>.jsonl.
func IsActivityFile(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	return path.Base(path.Dir(p)) == ActivityDir && path.Base(path.Dir(path.Dir(p))) == RecordsDir &&
		isShardName(path.Base(p))
}

// Canonical returns a in canonical form (UTC times), sharing no memory
// with a.
func (a ActivityRecord) Canonical() ActivityRecord {
	a.At = utc(a.At)
	a.UpdatedAt = utcPtr(a.UpdatedAt)
	a.Body, a.Field, a.From, a.To, a.TaskID = clone(a.Body), clone(a.Field), clone(a.From), clone(a.To), clone(a.TaskID)
	return a
}

// Edited is when a was last written: its updated_at, else its at.
func (a *ActivityRecord) Edited() time.Time {
	if a.UpdatedAt != nil {
		return *a.UpdatedAt
	}
	return a.At
}

// Check validates an activity record, as read from a file or about to be
// written: safe ids, a known type, the fields of that type only, and the
// size limits.
func (a *ActivityRecord) Check() error {
	for _, f := range []struct{ name, v string }{{"id", a.ID}, {"issue_id", a.IssueID}} {
		if err := checkRecordID(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if a.TaskID != nil {
		if err := checkRecordID(*a.TaskID); err != nil {
			return fmt.Errorf("task_id: %w", err)
		}
	}
	if err := checkLine("actor", a.Actor, MaxActorBytes); err != nil {
		return err
	}
	if a.At.IsZero() {
		return errors.New(`missing "at"`)
	}
	switch a.Type {
	case ActivityComment:
		if a.Field != nil || a.From != nil || a.To != nil || a.TaskID != nil {
			return errors.New("a comment has no field, from, to or task_id")
		}
		if a.Body == nil || strings.TrimSpace(*a.Body) == "" {
			return errors.New("a comment needs a body")
		}
		if len(*a.Body) > MaxCommentBytes || !utf8.ValidString(*a.Body) {
			return fmt.Errorf("a comment's body must be UTF-8 of at most %d bytes", MaxCommentBytes)
		}
	case ActivityChange:
		if a.Body != nil || a.UpdatedAt != nil {
			return errors.New("a change has no body or updated_at")
		}
		if a.Field == nil || !slices.Contains(ChangeFields, *a.Field) {
			return fmt.Errorf("a change's field must be one of %s", strings.Join(ChangeFields, ", "))
		}
		if (*a.Field == ChangeTask) != (a.TaskID != nil) {
			return errors.New("a task change, and only one, names its task_id")
		}
		for _, v := range []struct {
			name string
			v    *string
		}{{"from", a.From}, {"to", a.To}} {
			if v.v != nil {
				if err := checkLine(v.name, *v.v, MaxChangeBytes); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("type %q: must be comment or change", a.Type)
	}
	return nil
}

// checkRecordID accepts an id of the tracker's forms (and the forms merges
// give renamed ids): letters, digits and dashes, up to 100 characters.
func checkRecordID(id string) error {
	if id == "" || len(id) > maxActivityID {
		return fmt.Errorf("must be 1 to %d characters", maxActivityID)
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("%q: only letters, digits, '-', '_' and '.'", id)
		}
	}
	return nil
}

// checkLine accepts a single line of valid UTF-8 of at most max bytes.
func checkLine(name, v string, max int) error {
	if len(v) > max || !utf8.ValidString(v) || strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("%s must be one line of UTF-8 of at most %d bytes", name, max)
	}
	return nil
}

var activityCodec = codec[ActivityRecord]{ActivityDir,
	func(a *ActivityRecord) string { return a.ID }, nil, ActivityRecord.Canonical}

// ParseActivity reads an activity shard strictly, as ParseIssues: any bad
// line fails the whole file. The merge driver reads this way, so that a
// merge never drops a line it does not understand.
func ParseActivity(data []byte) ([]ActivityRecord, error) {
	return parse(activityCodec, data, (*ActivityRecord).Check)
}

// EncodeActivity writes an activity shard canonically, as EncodeIssues.
func EncodeActivity(recs []ActivityRecord) ([]byte, error) { return encode(activityCodec, recs) }

// ReadActivity reads an activity shard leniently, for showing: lines that
// are not valid records are skipped and counted in bad, and so are the
// markers of a merge conflict git left in the file without the merge
// driver (the two sides' lines between them are both kept: activity merges
// as a union anyway); a repeated id keeps its first record.
func ReadActivity(data []byte) (recs []ActivityRecord, bad int) {
	data = bytes.TrimPrefix(data, bom)
	seen := map[string]bool{}
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || conflictMarker(line) {
			continue
		}
		r, err := decodeRecord(activityCodec, line, (*ActivityRecord).Check)
		if err != nil {
			bad++
			continue
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			recs = append(recs, r)
		}
	}
	return recs, bad
}

func conflictMarker(line []byte) bool {
	for _, m := range []string{"<<<<<<<", "|||||||", "=======", ">>>>>>>"} {
		if bytes.HasPrefix(line, []byte(m)) {
			return true
		}
	}
	return false
}

// SplitActivity turns issue id's records (of any issues) into its comments
// and its history, each in time order.
func SplitActivity(recs []ActivityRecord, issueID string) (comments []Comment, history []HistoryEvent) {
	comments, history = []Comment{}, []HistoryEvent{}
	mine := make([]ActivityRecord, 0, len(recs))
	for _, r := range recs {
		if r.IssueID == issueID {
			mine = append(mine, r.Canonical())
		}
	}
	// Changes made in one instant (one update) come in the order of
	// ChangeFields, then as the file has them: appended in the order made.
	slices.SortStableFunc(mine, func(a, b ActivityRecord) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(fieldRank(a.Field), fieldRank(b.Field)))
	})
	for _, r := range mine {
		switch r.Type {
		case ActivityComment:
			comments = append(comments, Comment{ID: r.ID, IssueID: r.IssueID, Author: r.Actor, Body: *r.Body,
				CreatedAt: r.At, UpdatedAt: r.Edited()})
		case ActivityChange:
			history = append(history, HistoryEvent{ID: r.ID, IssueID: r.IssueID, At: r.At, Actor: r.Actor,
				Field: *r.Field, From: r.From, To: r.To, TaskID: r.TaskID})
		}
	}
	return comments, history
}

func fieldRank(f *string) int {
	if f == nil {
		return -1
	}
	return slices.Index(ChangeFields, *f)
}

// LinkText is how a change names a link: "FROM TYPE TO".
func LinkText(from string, rt RelType, to string) string { return from + " " + string(rt) + " " + to }
