package store

import (
	"context"
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// An issue's comments and history are appended to its activity shard
// (tracker.ActivityFile) at the end of the change that made them, under
// the change's lock: one append per shard touched, never a rewrite, so
// recording history costs an update next to nothing at any size. The
// activity is not indexed by the cache; show reads the issue's shard.

// AddComment adds a comment (markdown) to an issue, written by the Repo's
// actor.
func (r *Repo) AddComment(ctx context.Context, issueID, body string) (tracker.Comment, error) {
	// Trailing space and leading blank lines say nothing; leading spaces
	// may be markdown (an indented code block).
	body = strings.TrimLeft(strings.TrimRight(body, " \t\r\n"), "\r\n")
	if body == "" {
		return tracker.Comment{}, fault.New(fault.Invalid, "a comment must not be empty")
	}
	if len(body) > tracker.MaxCommentBytes {
		return tracker.Comment{}, fault.New(fault.Invalid, "the comment is too long (%d bytes; the limit is %d)", len(body), tracker.MaxCommentBytes).
			WithHint("put long material in the issue's description or a spec, and link to it")
	}
	var out tracker.Comment
	err := r.Update(ctx, func(t *Tx) error {
		rec, err := t.issue(issueID)
		if err != nil {
			return err
		}
		a := tracker.ActivityRecord{ID: tracker.CommentID(r.Config.Prefix, tracker.NewUUID()), IssueID: rec.ID,
			Type: tracker.ActivityComment, Actor: r.Actor, At: t.now, Body: &body}
		if err := t.addActivity(a); err != nil {
			return err
		}
		out = tracker.Comment{ID: a.ID, IssueID: a.IssueID, Author: a.Actor, Body: body, CreatedAt: a.At, UpdatedAt: a.At}
		return nil
	})
	return out, err
}

// RecordTask adds to an issue's history what happened to an agent task
// on it: what is one of tracker.TaskEvents (started, merged, failed …).
func (r *Repo) RecordTask(ctx context.Context, issueID, taskID, what string) error {
	if _, err := tracker.ParseEnum("task event", what, tracker.TaskEvents); err != nil {
		return err
	}
	return r.Update(ctx, func(t *Tx) error {
		rec, err := t.issue(issueID)
		if err != nil {
			return err
		}
		return t.noteChange(rec.ID, tracker.ChangeTask, nil, &what, &taskID)
	})
}

// Activity returns an issue's comments and history, each oldest first.
// Lines of the shard that are not valid records are skipped (the file
// comes from git); the history is a record, not a reason to refuse to
// show the issue.
func (r *Repo) Activity(issueID string) ([]tracker.Comment, []tracker.HistoryEvent, error) {
	rs, err := openRecords(r.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	data, err := rs.read(tracker.ActivityFile(issueID))
	if err != nil {
		return nil, nil, err
	}
	recs, _ := tracker.ReadActivity(data)
	c, h := tracker.SplitActivity(recs, issueID)
	return c, h, nil
}

// noteChange queues a change of an issue's field for its history.
func (t *Tx) noteChange(issueID, field string, from, to, taskID *string) error {
	return t.addActivity(tracker.ActivityRecord{ID: tracker.ChangeID(t.r.Config.Prefix, tracker.NewUUID()), IssueID: issueID,
		Type: tracker.ActivityChange, Actor: t.r.Actor, At: t.now, Field: &field, From: from, To: to, TaskID: taskID})
}

// noteIssueChanges queues the history of an issue patched from before to
// after: its status and its assignee.
func (t *Tx) noteIssueChanges(before, after *tracker.Issue) error {
	if before.Status != after.Status {
		if err := t.noteChange(after.ID, tracker.ChangeStatus, strPtr(string(before.Status)), strPtr(string(after.Status)), nil); err != nil {
			return err
		}
	}
	if deref(before.Assignee) != deref(after.Assignee) {
		return t.noteChange(after.ID, tracker.ChangeAssignee, before.Assignee, after.Assignee, nil)
	}
	return nil
}

// noteLink queues a link added (or removed) for the history of each of its
// ends that is an issue.
func (t *Tx) noteLink(rel tracker.Relationship, added bool) error {
	text := tracker.LinkText(rel.From, rel.Type, rel.To)
	from, to := &text, (*string)(nil)
	if added {
		from, to = nil, &text
	}
	for _, end := range []struct {
		id   string
		kind tracker.Kind
	}{{rel.From, rel.FromType}, {rel.To, rel.ToType}} {
		if end.kind == tracker.KindIssue {
			if err := t.noteChange(end.id, tracker.ChangeLink, from, to, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// addActivity checks a record and queues it for appendActivity.
func (t *Tx) addActivity(a tracker.ActivityRecord) error {
	a = a.Canonical()
	if err := a.Check(); err != nil {
		return fault.New(fault.Invalid, "%v", err)
	}
	t.activity = append(t.activity, a)
	return nil
}

// prepareActivity readies the change's activity before any record file
// is written: each record encoded into its shard's lines, each shard
// checked (a plain file, or none yet) and a conflict git left in it
// repaired. A refusal here stops the change with nothing written.
func (t *Tx) prepareActivity() error {
	if len(t.activity) == 0 {
		return nil
	}
	t.activityLines = map[string][]byte{}
	for i := range t.activity {
		line, err := tracker.MarshalLine(&t.activity[i])
		if err != nil {
			return fault.Wrap(fault.Internal, err, "cannot encode an activity record")
		}
		f := tracker.ActivityFile(t.activity[i].IssueID)
		t.activityLines[f] = append(t.activityLines[f], line...)
	}
	for _, f := range slices.Sorted(maps.Keys(t.activityLines)) {
		if err := t.rs.plainOrAbsent(f); err != nil {
			return err
		}
		if err := t.repairActivity(f); err != nil {
			return err
		}
	}
	return nil
}

// appendActivity appends the lines prepareActivity made to their shards,
// once the record files are written.
func (t *Tx) appendActivity() error {
	for _, f := range slices.Sorted(maps.Keys(t.activityLines)) {
		if err := t.rs.appendLines(f, t.activityLines[f]); err != nil {
			return err
		}
	}
	return nil
}

// repairActivity merges a conflict git left in activity shard f (a merge
// made without the driver) before anything is appended to it, as the
// record files are repaired: the union of both sides, staged when git
// still holds the conflict. Readers skip the markers meanwhile.
func (t *Tx) repairActivity(f string) error {
	data, err := t.rs.read(f)
	if err != nil || !conflictMarked(data) {
		return err
	}
	rep, err := t.r.repairFile(t.ctx, t.rs, f)
	if err == errTornConflict {
		return nil // the markers are skipped when reading; doctor names the file
	}
	if fault.Is(err, fault.Invalid) {
		// A side holds a line that is not a record: the change goes on
		// (history must not stop an update), the file waits for a hand.
		t.r.notify("the merge conflict in " + path.Join(DirName, f) + " was left as it is: " + err.Error() +
			"; fix the line, then run sudocode doctor --fix")
		return nil
	}
	if err != nil {
		return err
	}
	t.r.notify(rep.notice())
	return nil
}

// appendLines appends lines (whole, each with its newline) to file p,
// made when absent. A last line without its newline (a writer killed
// mid-append) is cut off first, so a torn line never joins a new one;
// the lock serialises appenders.
func (rs *records) appendLines(p string, lines []byte) error {
	if err := rs.plainOrAbsent(p); err != nil {
		return err
	}
	if err := rs.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	f, err := rs.root.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	err = cutTornLine(f)
	if err == nil {
		_, err = f.Write(lines)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	return nil
}

// plainOrAbsent refuses a file p that is there and is not a regular file
// (a link, a FIFO): the tracker writes only plain files.
func (rs *records) plainOrAbsent(p string) error {
	fi, err := rs.root.Lstat(p)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return fault.New(fault.Invalid, "%s is not a regular file", p).
			WithHint("the tracker's record files are plain files; remove it (git checkout restores a committed one)")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	return nil
}

// cutTornLine truncates f after its last newline when it does not end
// with one.
func cutTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	size := fi.Size()
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	// Look back for the last newline, a block at a time.
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := strings.LastIndexByte(string(buf[:n]), '\n'); i >= 0 {
			return f.Truncate(start + int64(i) + 1)
		}
		end = start
	}
	return f.Truncate(0)
}

// activityStamp is a digest of the activity shards' names, sizes and
// times, for Stamp: a comment appended by another process is a change an
// open page should show, though the cache does not index it.
func (rs *records) activityStamp() string {
	dir := path.Join(tracker.RecordsDir, tracker.ActivityDir)
	d, err := rs.root.Open(dir)
	if err != nil {
		return "none"
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return "unreadable"
	}
	slices.Sort(names)
	h := fnv.New64a()
	for _, n := range names {
		if _, ok := tracker.ShardOfFileName(n); ok {
			io.WriteString(h, n+":"+rs.stat(path.Join(dir, n))+"|")
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
