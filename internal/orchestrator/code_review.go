package orchestrator

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/anchor"
)

// CodeCommentInput is a new comment on line Line (1-based) of File, a
// slash-separated path in the task's worktree (or branch).
type CodeCommentInput struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Body string `json:"body"`
}

// maxCommentBody caps a code comment; a review is read by a model.
const maxCommentBody = 20000

// AddCodeComment anchors a comment on a line of task id's file as the
// file is now (the worktree's, else the branch's), with the same anchors
// spec feedback has, so that it follows its code from then on.
func (o *Orchestrator) AddCodeComment(ctx context.Context, id string, in CodeCommentInput) (CodeComment, error) {
	t, err := o.ownTask(ctx, id)
	if err != nil {
		return CodeComment{}, err
	}
	body := strings.TrimSpace(in.Body)
	switch {
	case body == "":
		return CodeComment{}, fault.New(fault.Invalid, "a comment needs a body").WithHint("say what the agent should change on that line")
	case len(body) > maxCommentBody:
		return CodeComment{}, fault.New(fault.Invalid, "a comment is at most %d bytes, not %d", maxCommentBody, len(body))
	case !filepath.IsLocal(filepath.FromSlash(in.File)) || strings.Contains(in.File, "\\"):
		return CodeComment{}, fault.New(fault.Invalid, "file %q is not a path inside the task's worktree", in.File).
			WithHint("name the file as the diff does, e.g. src/main.go")
	}
	files := o.filesOf(ctx, t)
	text, ok, err := files.read(ctx, in.File)
	if err != nil {
		return CodeComment{}, err
	}
	if !ok {
		return CodeComment{}, fault.New(fault.NotFound, "task %s has no file %s", id, in.File).WithHint("comment on a line of a file the diff shows")
	}
	now := time.Now().UTC()
	a, err := anchor.New(text, in.Line, now)
	if err != nil {
		return CodeComment{}, fault.New(fault.Invalid, "cannot comment on %s:%d: %s", in.File, in.Line, strings.ReplaceAll(err.Error(), "spec", "file")).
			WithHint("comment on a line with code on it")
	}
	code, _, _ := anchor.Line(text, in.Line)
	c := CodeComment{ID: newID(), TaskID: id, File: in.File, Line: a.LineNumber, Code: code, Body: body, State: CommentOpen, Anchor: a, CreatedAt: now}
	if err := o.store.addCodeComment(ctx, c); err != nil {
		return CodeComment{}, err
	}
	return c, nil
}

// CodeComments returns task id's code comments, oldest first, each moved
// to where its code is now: the files are read as they are (the worktree's,
// else the branch's) and every anchor relocated as spec feedback's are
// (anchor.Relocate: in place, then by context), stale when its code is
// gone. Reading them is enough to follow the agent's revisions: a
// follow-up's changes are seen the next time the comments are read.
func (o *Orchestrator) CodeComments(ctx context.Context, id string) ([]CodeComment, error) {
	t, err := o.ownTask(ctx, id)
	if err != nil {
		return nil, err
	}
	cs, err := o.store.codeComments(ctx, id)
	if err != nil || len(cs) == 0 {
		return cs, err
	}
	files := o.filesOf(ctx, t)
	if files.none() {
		return cs, nil // merged or ended: the comments stay where they were last seen
	}
	bodies := map[string]string{}
	for i, c := range cs {
		text, seen := bodies[c.File]
		if !seen {
			var ok bool
			if text, ok, err = files.read(ctx, c.File); err != nil {
				return nil, err
			} else if !ok {
				text = "" // the file is gone, and the code with it
			}
			bodies[c.File] = text
		}
		if cs[i], err = o.relocateComment(ctx, c, text); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// relocateComment moves c to where its code is in body, saving the move
// when it moved (not for a mere check, which changes only the time).
func (o *Orchestrator) relocateComment(ctx context.Context, c CodeComment, body string) (CodeComment, error) {
	a := anchor.Relocate(body, c.Anchor, time.Now().UTC())
	if !moved(c.Anchor, a) {
		return c, nil
	}
	if err := o.store.moveCodeComment(ctx, c.ID, a); err != nil {
		return c, err
	}
	c.Anchor, c.Line, c.Stale = a, a.LineNumber, a.AnchorStatus == tracker.AnchorStale
	return c, nil
}

func moved(old, cur tracker.Anchor) bool {
	return old.LineNumber != cur.LineNumber || old.AnchorStatus != cur.AnchorStatus ||
		old.ContextBefore != cur.ContextBefore || old.ContextAfter != cur.ContextAfter || old.LineOffset != cur.LineOffset
}

// DeleteCodeComment removes comment cid from task id.
func (o *Orchestrator) DeleteCodeComment(ctx context.Context, id, cid string) error {
	if _, err := o.ownTask(ctx, id); err != nil {
		return err
	}
	return o.store.deleteCodeComment(ctx, id, cid)
}

// ownTask is task id when the client of ctx owns it.
func (o *Orchestrator) ownTask(ctx context.Context, id string) (Task, error) {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return t, err
	}
	return t, CheckOwner(ctx, t)
}

// taskFiles reads a task's files as its diff does: from its worktree while
// it exists, else from the tip of its branch.
type taskFiles struct {
	worktree string // the worktree's directory, or ""
	repo     string // with branch: the repository holding it
	branch   string
}

func (o *Orchestrator) filesOf(ctx context.Context, t Task) taskFiles {
	if t.WorktreePath != "" {
		if st, err := os.Stat(t.WorktreePath); err == nil && st.IsDir() {
			return taskFiles{worktree: t.WorktreePath}
		}
	}
	if t.Branch == "" {
		return taskFiles{}
	}
	if _, err := git(ctx, o.wt.repo, "show-ref", "--verify", "--quiet", "refs/heads/"+t.Branch); err != nil {
		return taskFiles{}
	}
	return taskFiles{repo: o.wt.repo, branch: t.Branch}
}

func (f taskFiles) none() bool { return f.worktree == "" && f.branch == "" }

// read returns file's text (cut at DiffLimit); ok is false when there is
// no such file.
func (f taskFiles) read(ctx context.Context, file string) (text string, ok bool, err error) {
	switch {
	case f.worktree != "":
		// Through a root: a symlink in the worktree cannot lead out of it.
		root, err := os.OpenRoot(f.worktree)
		if err != nil {
			return "", false, fault.Wrap(fault.Unavailable, err, "failed to open the task's worktree")
		}
		defer root.Close()
		// Non-blocking: the agent may have made the file a FIFO, whose
		// open would wait for a writer for ever.
		// A name that cannot be opened in the worktree (gone, a link out of
		// it, a directory in its path turned into something else) holds no
		// code of the task's: its comments are stale, the others unaffected.
		fh, err := root.OpenFile(filepath.FromSlash(file), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return "", false, nil
		}
		defer fh.Close()
		if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
			return "", false, nil
		}
		b, err := io.ReadAll(io.LimitReader(fh, DiffLimit))
		if err != nil {
			return "", false, fault.Wrap(fault.Unavailable, err, "cannot read "+file)
		}
		return string(b), true, nil
	case f.branch != "":
		rev := "refs/heads/" + f.branch + ":" + file
		if _, err := git(ctx, f.repo, "cat-file", "-e", rev); err != nil {
			return "", false, nil
		}
		var b []byte
		read := func(r *bufio.Reader) (rerr error) {
			b, rerr = io.ReadAll(io.LimitReader(r, DiffLimit))
			return rerr
		}
		if err := gitx.Run(ctx, gitx.Options{Dir: f.repo, Timeout: gitTimeout}, read, "cat-file", "blob", rev); err != nil {
			return "", false, fault.Wrap(fault.Unavailable, err, "cannot read "+file+" on branch "+f.branch)
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// SendReview sends task id's open code comments and the follow-up
// together, as one Update with the comments written out first (each as
// file:line, the quoted code and the comment) and then the follow-up. The
// comments are marked sent and keep following their code. Reviews sent at
// once go one after the other: the next reads the comments the last sent
// as sent (its run over that quickly), or the task running, never the
// same comments open again.
func (o *Orchestrator) SendReview(ctx context.Context, id, followUp string) (Task, []CodeComment, error) {
	o.reviewMu.Lock()
	defer o.reviewMu.Unlock()
	cs, err := o.CodeComments(ctx, id)
	if err != nil {
		return Task{}, nil, err
	}
	var open []CodeComment
	for _, c := range cs {
		if c.State == CommentOpen {
			open = append(open, c)
		}
	}
	followUp = strings.TrimSpace(followUp)
	if len(open) == 0 && followUp == "" {
		return Task{}, nil, fault.New(fault.Invalid, "nothing to send: no open comment and no follow-up").
			WithHint("comment on lines of the diff, or write what the agent should do next")
	}
	t, err := o.Update(ctx, id, UpdateInput{Instructions: ReviewText(open, followUp)})
	if err != nil {
		return t, nil, err
	}
	ids := make([]string, len(open))
	for i, c := range open {
		ids[i] = c.ID
	}
	if err := o.store.markCodeCommentsSent(ctx, id, ids, t.UpdatedAt); err != nil {
		return t, nil, fault.Wrap(fault.Internal, err, "the review went to task "+id+", but its comments still read open")
	}
	return t, open, nil
}

// ReviewText is the instructions a review sends: the comments, each with
// where its code is and the code quoted, then the follow-up.
func ReviewText(comments []CodeComment, followUp string) string {
	if len(comments) == 0 {
		return followUp
	}
	var b strings.Builder
	b.WriteString("Review comments on your branch. Address each one; what you leave in the worktree, committed or not, is what gets merged.\n")
	for _, c := range comments {
		where := fmt.Sprintf("%s:%d", c.File, c.Line)
		if c.Stale {
			where = fmt.Sprintf("%s (was line %d; that code is no longer there)", c.File, c.Line)
		}
		fmt.Fprintf(&b, "\n%s\n> %s\n%s\n", where, c.Code, c.Body)
	}
	if followUp != "" {
		b.WriteString("\n" + followUp + "\n")
	}
	return b.String()
}
