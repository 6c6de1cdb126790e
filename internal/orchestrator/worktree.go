package orchestrator

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Worktrees creates and removes the task worktrees of one git repository.
// Every git operation that takes locks in the shared .git runs under one
// mutex. The user's own checkout is never modified: worktrees are added
// from HEAD's commit, outside the checkout and its git directory (see
// worktreeDir).
type Worktrees struct {
	repo string      // the directory the user gave (any directory inside the repo)
	root string      // the configured worktree root; empty for the project's setting or the default
	env  userenv.Env // the user's: the default root, trust records, agent configuration are in its directories
	mu   sync.Mutex
	// addMu is held for writing while git adds a worktree (addWorktree),
	// and for reading by a fetch into the repository (takeRemoteWork): a
	// fetch checks what it got against every ref, the worktrees' HEADs
	// included, and a worktree being added has a HEAD of zeros for a
	// moment, which it takes for a bad object. Fetches of several runs'
	// work go side by side.
	addMu sync.RWMutex

	placeMu sync.Mutex
	placed  repoInfo // see place
}

// NewWorktrees returns a manager for the repository containing repo;
// worktrees go under root (see worktreeDir), for the user of env.
func NewWorktrees(repo, root string, env userenv.Env) *Worktrees {
	return &Worktrees{repo: repo, root: root, env: env}
}

// git runs git in dir (through gitx: hardened, and sandboxed where it
// touches a work tree) and returns its trimmed stdout; a failure's error
// carries git's stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, gitx.Options{Dir: dir, Locks: true}, args...)
}

// gitWith is git with explicit variables (GIT_INDEX_FILE, an identity).
func gitWith(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return runGit(ctx, gitx.Options{Dir: dir, Env: env, Locks: true}, args...)
}

// gitWriting is git that may also write below dirs (where worktrees are
// added and removed).
func gitWriting(ctx context.Context, dir string, dirs []string, args ...string) (string, error) {
	return runGit(ctx, gitx.Options{Dir: dir, Writable: dirs, Locks: true}, args...)
}

// gitTimeout bounds one git process: checking out or saving a large
// worktree takes long, a hung one must not hold the lock for ever.
const gitTimeout = 10 * time.Minute

func runGit(ctx context.Context, o gitx.Options, args ...string) (string, error) {
	o.Timeout = gitTimeout
	out, err := gitx.Output(ctx, o, 64<<20, args...)
	if err != nil {
		msg := err.Error()
		var ee *gitx.ExitError
		if errors.As(err, &ee) && strings.TrimSpace(ee.Stderr) != "" {
			msg = strings.TrimSpace(ee.Stderr)
		}
		return strings.TrimSpace(string(out)), &gitError{args: args, msg: msg, err: err}
	}
	return strings.TrimSpace(string(out)), nil
}

type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string { return "git " + strings.Join(e.args, " ") + ": " + e.msg }
func (e *gitError) Unwrap() error { return e.err }

// repoInfo is what Add needs to know about the repository.
type repoInfo struct {
	top, commonDir, head string
}

func (w *Worktrees) info(ctx context.Context) (repoInfo, error) {
	ri, err := w.place(ctx)
	if err != nil {
		return ri, err
	}
	head, err := git(ctx, w.repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || head == "" {
		return repoInfo{}, fault.New(fault.Invalid, "repository %s has no commit yet", ri.top).
			WithHint("commit something first; tasks branch off the current HEAD")
	}
	ri.head = head
	return ri, nil
}

// place is where the repository is: its top and common directory (no
// head), read from git once and then kept, as a repository does not move
// under a running process.
func (w *Worktrees) place(ctx context.Context) (repoInfo, error) {
	if st, err := os.Stat(w.repo); err != nil || !st.IsDir() {
		return repoInfo{}, fault.New(fault.Invalid, "project directory %s does not exist", w.repo)
	}
	w.placeMu.Lock()
	defer w.placeMu.Unlock()
	if w.placed.top != "" {
		return w.placed, nil
	}
	out, err := git(ctx, w.repo, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return repoInfo{}, fault.New(fault.Invalid, "%s is not a git repository", w.repo).
			WithHint("run `git init` and commit, or start the server in a git checkout")
	}
	top, common, ok := strings.Cut(out, "\n")
	if !ok || top == "" || common == "" {
		return repoInfo{}, fault.New(fault.Internal, "failed to locate the git directory: rev-parse said %q", out)
	}
	w.placed = repoInfo{top: top, commonDir: common}
	return w.placed, nil
}

// dirFor is where worktrees go in the repository described by ri.
func (w *Worktrees) dirFor(ri repoInfo) (string, error) {
	s, err := loadSettings(ri.top, w.env)
	if err != nil {
		return "", err
	}
	return worktreeDir(ri, w.root, s, w.env)
}

// validBranch refuses a name git does not take for a branch. It reads no
// ref: callers check it before taking w.mu, which every task's start
// waits for.
func (w *Worktrees) validBranch(ctx context.Context, branch string) error {
	if branch == "" || strings.HasPrefix(branch, "-") {
		return fault.New(fault.Invalid, "invalid branch name %q", branch)
	}
	if _, err := git(ctx, w.repo, "check-ref-format", "--branch", branch); err != nil {
		return fault.New(fault.Invalid, "invalid branch name %q", branch)
	}
	return nil
}

// freeBranch refuses a branch that exists. The caller holds w.mu, under
// which branches are made.
func (w *Worktrees) freeBranch(ctx context.Context, branch string) error {
	if _, err := git(ctx, w.repo, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		if at := w.checkedOutAt(ctx, branch); at != "" {
			return fault.New(fault.Conflict, "branch %q is already checked out at %s", branch, at).
				WithHint("omit branch to get a new one, or choose another name")
		}
		return fault.New(fault.Conflict, "branch %q already exists", branch).
			WithHint("omit branch to get a new one, or choose another name")
	}
	return nil
}

// checkedOutAt returns the worktree where branch is checked out, if any.
func (w *Worktrees) checkedOutAt(ctx context.Context, branch string) string {
	out, err := git(ctx, w.repo, "worktree", "list", "--porcelain")
	if err != nil {
		return ""
	}
	var path string
	for line := range strings.SplitSeq(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			path = p
		}
		if line == "branch refs/heads/"+branch {
			return path
		}
	}
	return ""
}

// Add creates a fresh worktree for task id on a new branch from the
// current HEAD commit. It returns the worktree path and the base commit. On
// any failure nothing is left behind: no branch, no directory.
func (w *Worktrees) Add(ctx context.Context, id, branch string) (path, base string, err error) {
	if err := w.validBranch(ctx, branch); err != nil {
		return "", "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ri, err := w.info(ctx)
	if err != nil {
		return "", "", err
	}
	if err := w.freeBranch(ctx, branch); err != nil {
		return "", "", err
	}
	dir, err := w.dirFor(ri)
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, id)
	if _, err := os.Lstat(path); err == nil {
		return "", "", fault.New(fault.Conflict, "worktree path %s already exists", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fault.Wrap(fault.Unavailable, err, "failed to create the worktree directory")
	}
	// git worktree add is not stopped half-way, when the caller goes:
	// killed, it leaves a registration locked as "initializing" that no
	// prune removes, and every later worktree add in the repository fails
	// on it.
	if _, err := w.addWorktree(context.WithoutCancel(ctx), dir, "-b", branch, path, ri.head); err != nil {
		// A failed add -b can leave the new branch and a partial directory.
		w.unregister(context.WithoutCancel(ctx), path)
		_, _ = git(context.WithoutCancel(ctx), w.repo, "branch", "-D", branch)
		return "", "", fault.Wrap(fault.Conflict, err, "failed to create the task worktree")
	}
	return path, ri.head, nil
}

// addWorktree runs git worktree add with args, for a worktree in dir,
// holding addMu. The caller holds w.mu.
func (w *Worktrees) addWorktree(ctx context.Context, dir string, args ...string) (string, error) {
	w.addMu.Lock()
	defer w.addMu.Unlock()
	return gitWriting(ctx, w.repo, []string{dir}, append([]string{"worktree", "add"}, args...)...)
}

// unregister removes the worktree at path, whatever state it is in
// (registered or not, complete or not). The caller holds w.mu.
func (w *Worktrees) unregister(ctx context.Context, path string) {
	_, _ = gitWriting(ctx, w.repo, []string{filepath.Dir(path)}, "worktree", "remove", "--force", "--force", path)
	_ = os.RemoveAll(path)
	_, _ = git(ctx, w.repo, "worktree", "prune")
}

// removeTree removes the worktree at path. The files go first without the
// lock (only this worktree's files and index are touched, and on a large
// repository that takes most of the time); git then drops the nearly empty
// worktree and its registration under the lock.
func (w *Worktrees) removeTree(ctx context.Context, path string) error {
	if ents, err := os.ReadDir(path); err == nil {
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return err // a closing process leaves the rest to the next Sweep
			}
			if e.Name() != ".git" {
				_ = os.RemoveAll(filepath.Join(path, e.Name()))
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := gitWriting(ctx, w.repo, []string{filepath.Dir(path)}, "worktree", "remove", "--force", "--force", path); err != nil {
		// Last resort for a broken worktree: it holds only the task's files.
		if err2 := os.RemoveAll(path); err2 != nil {
			return fault.Wrap(fault.Internal, err, "failed to remove the task worktree")
		}
	}
	_, _ = git(ctx, w.repo, "worktree", "prune")
	return nil
}

// Removal reports what Remove did.
type Removal struct {
	// Discarded lists the worktree's uncommitted changes (git status
	// --porcelain lines) that were thrown away. They are the agent's, never
	// the user's: the worktree was created for the task.
	Discarded []string `json:"discarded,omitempty"`
	// SavedCommit is the commit that saved the worktree's uncommitted and
	// untracked files onto the kept branch.
	SavedCommit   string `json:"saved_commit,omitempty"`
	BranchDeleted bool   `json:"branch_deleted"`
}

// saveIdent is the author and committer of the commits sudocode makes
// when git knows no identity for the repository.
var saveIdent = []string{
	"GIT_AUTHOR_NAME=sudocode", "GIT_AUTHOR_EMAIL=sudocode@localhost",
	"GIT_COMMITTER_NAME=sudocode", "GIT_COMMITTER_EMAIL=sudocode@localhost",
}

// Remove removes task id's worktree and, unless keepBranch, its branch.
// With keepBranch, uncommitted and untracked files are first committed
// onto the branch so that nothing the agent did is lost; without it they
// are discarded and listed. A worktree that is already gone is pruned.
func (w *Worktrees) Remove(ctx context.Context, id, path, branch string, keepBranch bool) (Removal, error) {
	var r Removal
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			if keepBranch && branch != "" {
				sha, err := w.save(ctx, id, path, branch)
				if err != nil {
					return r, err
				}
				r.SavedCommit = sha
			} else if st, err := runGit(ctx, gitx.Options{Dir: path}, "status", "--porcelain"); err == nil && st != "" {
				r.Discarded = strings.Split(st, "\n")
			}
		}
	}
	var err error
	r.BranchDeleted, err = w.drop(ctx, id, path, branch, keepBranch)
	return r, err
}

// drop removes task id's worktree as it is, neither saving nor listing
// what it holds, and, unless keepBranch, its branch; it reports whether
// the branch was deleted. A merge drops the worktree it has just merged
// whole: reading its status first would cost as much as the merge on a
// large repository, to list nothing.
func (w *Worktrees) drop(ctx context.Context, id, path, branch string, keepBranch bool) (branchDeleted bool, err error) {
	_ = os.RemoveAll(configDir(w.env, id))
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			if err := w.removeTree(ctx, path); err != nil {
				return false, err
			}
		} else {
			w.mu.Lock()
			_, _ = git(ctx, w.repo, "worktree", "prune")
			w.mu.Unlock()
		}
	}
	if keepBranch || branch == "" {
		return false, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := git(ctx, w.repo, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		return false, nil
	}
	if _, err := git(ctx, w.repo, "branch", "-D", branch); err != nil {
		return false, fault.Wrap(fault.Conflict, err, "failed to delete the task branch")
	}
	return true, nil
}

// save commits the worktree at path as it is (tracked, modified and
// untracked files; not ignored ones) onto branch, through a copy of the
// index, and returns the new commit, or "" when there was nothing to save.
// The commit goes onto the branch even if the agent left the worktree on
// another HEAD.
func (w *Worktrees) save(ctx context.Context, id, path, branch string) (string, error) {
	s, err := w.snapshot(ctx, id, path, branch)
	if err != nil || s.commit == s.old {
		return "", err
	}
	return s.commit, w.keep(ctx, id, path, branch, s)
}

// snapshotCommit is the worktree's files as one commit on top of its
// branch's tip (old), made but not yet on the branch; commit is old when
// there was nothing to commit. tree is the worktree's tree, and index,
// when the caller asked to keep it, the temporary index it was read
// through (the caller removes it).
type snapshotCommit struct {
	commit, old, tree string
	index             tempIndex
}

// snapshot commits the worktree at path as it is (tracked, modified and
// untracked files; not ignored ones) through a copy of the index, on top
// of branch's tip (or the worktree's HEAD when the branch is gone),
// without moving the branch or touching the worktree: a merge computed
// from it and refused leaves everything as it was.
func (w *Worktrees) snapshot(ctx context.Context, id, path, branch string) (snapshotCommit, error) {
	s, err := w.snapshotKeeping(ctx, id, path, branch)
	s.index.remove()
	s.index = tempIndex{}
	return s, err
}

// snapshotKeeping is snapshot keeping the temporary index (see
// recycle); the caller removes it, also on error.
func (w *Worktrees) snapshotKeeping(ctx context.Context, id, path, branch string) (snapshotCommit, error) {
	var s snapshotCommit
	var ti tempIndex
	var err error
	if admin, ok := w.adminDir(ctx, path); ok { // where git keeps its index, without asking git
		ti, err = newTempIndexAt(ctx, path, filepath.Join(admin, "index"))
	} else {
		ti, err = newTempIndex(ctx, path)
	}
	if err == nil {
		s.index = ti
		s.tree, err = gitWith(ctx, path, ti.env, "write-tree")
	}
	if err != nil {
		return s, fault.Wrap(fault.Internal, err, "failed to save the uncommitted work of task "+id)
	}
	tree := s.tree
	// The branch's tip and its tree in one call.
	parent, ptree, err := commitAndTree(ctx, path, "refs/heads/"+branch)
	if err == nil {
		s.old = parent
	} else if parent, ptree, err = commitAndTree(ctx, path, "HEAD"); err != nil {
		return s, fault.Wrap(fault.Internal, err, "failed to save the uncommitted work of task "+id)
	}
	if ptree == tree {
		s.commit = parent
		if s.old == "" {
			s.commit = "" // nothing to save, and no branch to keep it on
		}
		return s, nil
	}
	msg := "sudocode: save uncommitted work of task " + id
	s.commit, err = commitTree(ctx, path, tree, "-p", parent, "-m", msg)
	if err != nil {
		return s, fault.Wrap(fault.Internal, err, "failed to save the uncommitted work of task "+id)
	}
	return s, nil
}

// commitAndTree resolves rev (HEAD or a full ref name, never an option),
// in the repository of dir, to a commit and that commit's tree.
func commitAndTree(ctx context.Context, dir, rev string) (commit, tree string, err error) {
	out, err := git(ctx, dir, "rev-parse", rev+"^{commit}", rev+"^{tree}")
	if err != nil {
		return "", "", err
	}
	commit, tree, ok := strings.Cut(out, "\n")
	if !ok || commit == "" || tree == "" {
		return "", "", errors.New("unexpected rev-parse output: " + out)
	}
	return commit, tree, nil
}

// keep moves branch to the snapshot s (refused if the branch moved since
// the snapshot) and, when the worktree at path has the branch checked
// out, resets its index to it, so that its git status says what it holds
// that the branch does not (nothing, right after): a stale index would
// report the saved files as deleted and untracked at once.
func (w *Worktrees) keep(ctx context.Context, id, path, branch string, s snapshotCommit) error {
	if s.commit == "" || s.commit == s.old {
		return nil
	}
	ref := "refs/heads/" + branch
	msg := "sudocode: save uncommitted work of task " + id
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := git(ctx, w.repo, "update-ref", "-m", msg, ref, s.commit, s.old); err != nil {
		return fault.Wrap(fault.Conflict, err, "failed to save the uncommitted work of task "+id)
	}
	if head, err := git(ctx, path, "symbolic-ref", "--quiet", "HEAD"); err == nil && head == ref {
		if _, err := git(ctx, path, "read-tree", ref); err != nil {
			return fault.Wrap(fault.Internal, err, "saved the uncommitted work of task "+id+", but failed to refresh its worktree's index")
		}
	}
	return nil
}

// commitTree runs git commit-tree args in dir as the repository's own
// identity (its config, then the user's), or as sudocode when git knows
// none: the commit is tried first, and made again as sudocode only when
// git refused it for want of an identity (asking first would cost two git
// calls on every merge).
func commitTree(ctx context.Context, dir string, args ...string) (string, error) {
	args = append([]string{"commit-tree", "--no-gpg-sign"}, args...)
	sha, err := git(ctx, dir, args...)
	var ge *gitError
	if err != nil && errors.As(err, &ge) && noIdentity(ge.msg) {
		return gitWith(ctx, dir, saveIdent, args...)
	}
	return sha, err
}

// noIdentity reports whether git's message says it knows no author or
// committer.
func noIdentity(msg string) bool {
	for _, m := range []string{"identity unknown", "Please tell me who you are", "empty ident name", "unable to auto-detect email address"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// CommitsAhead counts the commits on branch since base.
func (w *Worktrees) CommitsAhead(ctx context.Context, base, branch string) (int, error) {
	out, err := git(ctx, w.repo, "rev-list", "--count", base+".."+"refs/heads/"+branch)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, errors.New("unexpected rev-list output: " + out)
	}
	return n, nil
}

// Dir returns the directory the task worktrees go in.
func (w *Worktrees) Dir(ctx context.Context) (string, error) {
	ri, err := w.place(ctx)
	if err != nil {
		return "", err
	}
	return w.dirFor(ri)
}

// ownWorktree reports whether path is a worktree of this repository as
// git made it: its .git file names an administrative directory of the
// repository's own. An agent may have rewritten the file to point
// elsewhere; such a worktree is not reused.
func (w *Worktrees) ownWorktree(ctx context.Context, path string) bool {
	_, ok := w.adminDir(ctx, path)
	return ok
}

// adminDir is the administrative directory the .git file of the worktree
// at path names, when it is one of the repository's own (a regular file
// naming a directory under the common directory's worktrees).
func (w *Worktrees) adminDir(ctx context.Context, path string) (string, bool) {
	f, err := os.OpenFile(filepath.Join(path, ".git"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", false
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", false
	}
	ri, err := w.place(ctx)
	if err != nil {
		return "", false
	}
	admin = filepath.Clean(admin)
	if filepath.Dir(admin) != filepath.Join(ri.commonDir, "worktrees") {
		return "", false
	}
	return admin, true
}

// prune drops git's registrations of worktrees whose directory is gone.
func (w *Worktrees) prune(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = git(ctx, w.repo, "worktree", "prune")
}

// gitTransport runs git reaching another repository (fetch, push), as a
// worker of the fleet does: see gitx.Options.Transport.
func gitTransport(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, gitx.Options{Dir: dir, Locks: true, Transport: true}, args...)
}
