package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
)

// MsgResumed is a worker's word, on a run offered again, of what it took
// up of the lost worker's run: body resumeNote.
const MsgResumed = "resumed"

// resumeNote is a MsgResumed's body.
type resumeNote struct {
	Checkpoint string `json:"checkpoint,omitempty"` // the checkpoint the agent goes on from; empty: none, it starts over
	Session    string `json:"session,omitempty"`    // the agent's session resumed with it; empty: a new one
	Problem    string `json:"problem,omitempty"`    // why a checkpoint there was not taken
	// InPlace: the run goes on in the task's worktree on the
	// coordinator's machine, which holds what the agent had done.
	InPlace bool `json:"in_place,omitempty"`
}

// goesOn reports whether the agent goes on from the lost run's work
// (resumed) rather than starting over (restarted).
func (r resumeNote) goesOn() bool { return r.Checkpoint != "" || r.InPlace }

// checkpoint is the checkpoint of a run, as a worker taking the run found
// it on the remote.
type checkpoint struct {
	commit      string // empty: none
	sessionName string // the session file saved with it, empty for none
	session     []byte
}

// takeCheckpoint fetches the checkpoint of a's run from a.Remote, if one
// was pushed, and puts it in the worktree at dir, which holds a.Head:
// the branch at the checkpoint's parent (the agent's commits kept) and
// the checkpoint's tree as uncommitted changes, which the run's end
// commits as it does the agent's own.
func (o *Orchestrator) takeCheckpoint(ctx context.Context, a Assignment, dir string) (checkpoint, error) {
	ri, err := o.wt.place(ctx)
	if err != nil {
		return checkpoint{}, err
	}
	local := "refs/sudocode/resume/" + a.Task + "/"
	o.performMu.Lock()
	defer o.performMu.Unlock()
	dropLocal := func() {
		_, _ = runGit(context.WithoutCancel(ctx), gitx.Options{Dir: ri.top, Locks: true, Stdin: strings.NewReader("delete " + local + "work\ndelete " + local + "session\n")}, "update-ref", "--stdin")
	}
	dropLocal()
	defer dropLocal()
	// A pattern: a run with no checkpoint fetches nothing, and is no error.
	if _, err := gitTransport(ctx, ri.top, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", a.Remote, "+"+checkpointRefs(a.Task, a.Run)+"*:"+local+"*"); err != nil {
		return checkpoint{}, err
	}
	parents, err := git(ctx, ri.top, "rev-list", "--parents", "-n", "1", "--end-of-options", local+"work")
	if err != nil {
		return checkpoint{}, nil // none pushed
	}
	ids := strings.Fields(parents)
	if len(ids) != 2 {
		return checkpoint{}, fault.New(fault.Conflict, "checkpoint %s is not a commit of one parent", parents)
	}
	c := checkpoint{commit: ids[0]}
	if _, err := git(ctx, ri.top, "merge-base", "--is-ancestor", a.Head, ids[1]); err != nil {
		return checkpoint{}, fault.New(fault.Conflict, "checkpoint %s does not follow the run's commit %s", c.commit, a.Head)
	}
	if _, err := git(ctx, dir, "reset", "--hard", "--quiet", c.commit); err != nil {
		return checkpoint{}, err
	}
	if _, err := git(ctx, dir, "reset", "--quiet", ids[1]); err != nil {
		_, _ = git(ctx, dir, "reset", "--hard", "--quiet", a.Head) // back to where the run starts over
		return checkpoint{}, err
	}
	c.sessionName, c.session = savedSession(ctx, ri.top, local+"session")
	return c, nil
}

// savedSession is the one file of the session commit at ref, if any.
func savedSession(ctx context.Context, repo, ref string) (string, []byte) {
	list, err := git(ctx, repo, "ls-tree", "--end-of-options", ref)
	if err != nil || list == "" || strings.Contains(list, "\n") {
		return "", nil
	}
	meta, name, _ := strings.Cut(list, "\t")
	f := strings.Fields(meta)
	if len(f) != 3 || f[1] != "blob" {
		return "", nil
	}
	b, err := gitx.Output(ctx, gitx.Options{Dir: repo, Timeout: gitTimeout}, maxSessionBytes, "cat-file", "blob", f[2])
	if err != nil {
		return "", nil
	}
	return name, b
}

// resumeSession places c's saved session where the agent's CLI, run in
// the session home h, finds it, and returns its id; "" when it cannot.
func (c checkpoint) resumeSession(h *sessionHome) (string, error) {
	if c.sessionName == "" || h == nil {
		return "", nil
	}
	return h.place(c.sessionName, c.session)
}

// interruptedPrompt is what a resumed session is told.
const interruptedPrompt = "The run you were in was interrupted: the machine running it was lost. Your work so far is in the working directory, " +
	"as it was last saved (the latest of it may be missing): your commits on the branch and your uncommitted changes. " +
	"Check where the work stands, then carry on with the task from there."

// resumedInstructions are the instructions of an agent that goes on from
// a checkpoint in a new session.
func resumedInstructions(instructions string) string {
	return "An earlier run of this task was interrupted (the machine running it was lost). Its work so far is in the working directory, " +
		"as it was last saved: commits on the branch and uncommitted changes. Check where the work stands and carry on from there " +
		"rather than starting over.\n\n" + instructions
}

// resumedText is the log's line for a worker's MsgResumed.
func resumedText(n int, worker string, r resumeNote) string {
	switch {
	case r.InPlace:
		return fmt.Sprintf("run %d taken up again by worker %s in the task's worktree, which holds what the agent had done", n, worker)
	case r.Checkpoint == "" && r.Problem != "":
		return fmt.Sprintf("worker %s could not take the work the lost worker saved (%s): the agent starts over from the task's branch", worker, r.Problem)
	case r.Checkpoint == "":
		return fmt.Sprintf("the lost worker saved no work: on worker %s the agent starts over from the task's branch", worker)
	case r.Session != "":
		return fmt.Sprintf("run %d resumed on worker %s from the work the lost worker saved (checkpoint %.12s), in the agent's session %s", n, worker, r.Checkpoint, r.Session)
	}
	return fmt.Sprintf("run %d resumed on worker %s from the work the lost worker saved (checkpoint %.12s), in a new session of the agent", n, worker, r.Checkpoint)
}
