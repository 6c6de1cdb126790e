package gitx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// Options say how to run one git process.
type Options struct {
	Dir string // the working directory (required)
	// Env holds explicit variables: GIT_INDEX_FILE, GIT_AUTHOR_*,
	// GIT_COMMITTER_* (anything else is refused).
	Env []string
	// Locks: the call writes (an index, refs, a work tree) and needs git's
	// optional locks; otherwise they are off, as for any read.
	Locks bool
	// Writable are extra directories a sandboxed git may write: a new
	// worktree's parent, a temporary index's directory.
	Writable []string
	// Repo is the repository as Discover pinned it for Dir; nil: the call
	// discovers it first (reading a few small files; in the rarer
	// layouts, one more unsandboxed process).
	Repo *Repo
	// Timeout bounds the process (default DefaultTimeout); WaitDelay is
	// how long its pipes may stay open after it was killed (default 2s).
	Timeout, WaitDelay time.Duration
	// Binary is the git executable (default "git" on PATH).
	Binary string
	// Stdin is git's standard input (nil: empty).
	Stdin io.Reader
	// NoFilters are filter drivers to switch off (see Filters).
	NoFilters []string
	// Transport lets fetch, push or clone reach another repository: a
	// path, ssh or https (see transport.go), outside the sandbox, which
	// has no network; hooks, helpers and the repository's commands stay
	// off. Without it, git reaches no other repository.
	Transport bool
}

// DefaultTimeout bounds a git process whose caller sets no timeout.
const DefaultTimeout = 30 * time.Second

const stderrLimit = 16 << 10 // stderr kept for error messages

// ErrEnough, returned by a consumer, stops git: the caller has read all
// it needs; the process is killed and its exit status ignored.
var ErrEnough = errors.New("enough git output")

// Output runs git and returns its stdout, which must fit in limit bytes.
func Output(ctx context.Context, o Options, limit int, args ...string) ([]byte, error) {
	return output(ctx, o, limit, true, args...)
}

// output is Output, with git pinned to the repository or, for discovery's
// own rev-parse, left to find it.
func output(ctx context.Context, o Options, limit int, pinned bool, args ...string) ([]byte, error) {
	var out []byte
	err := run(ctx, o, func(r *bufio.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		out = b
		if err != nil {
			return err
		}
		if len(b) > limit {
			return fmt.Errorf("git %s: output exceeds %d bytes", first(args), limit)
		}
		return nil
	}, args, pinned && sandboxed(args), pinned)
	return out, err
}

// Run runs git, hardened, with args (the subcommand first). consume reads
// stdout and may return ErrEnough to stop git early; nil discards it.
// Errors: *NotFoundError, *ExitError, *TimeoutError, context.Canceled, or
// another error when git could not run.
func Run(ctx context.Context, o Options, consume func(*bufio.Reader) error, args ...string) error {
	return run(ctx, o, consume, args, sandboxed(args), true)
}

// run is Run, sandboxed or not. pinned: git gets the repository as
// Discover pinned it (o.Repo, or discovered now); a sandboxed run is
// always pinned. Unpinned is discovery's own rev-parse alone.
func run(ctx context.Context, o Options, consume func(*bufio.Reader) error, args []string, sandboxed, pinned bool) error {
	full, err := argv(args, o.Locks)
	if err != nil {
		return err
	}
	env, err := environ(o.Locks, o.Env)
	if err != nil {
		return err
	}
	if o.Transport {
		if err := checkTransport(args); err != nil {
			return err
		}
		full, env, sandboxed = withTransport(full), transportEnviron(env), false
	}
	env = append(env, noFilters(o.NoFilters)...)
	bin, err := lookGit(o)
	if err != nil {
		return err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	repo := o.Repo
	if o.Transport && args[0] == "clone" {
		pinned = false // the repository is the one it makes, in o.Dir or below
	}
	if repo == nil && pinned {
		var ee *ExitError
		switch repo, err = Discover(tctx, o); {
		case err == nil:
		case errors.As(err, &ee) && !sandboxed:
			// No work tree around o.Dir: git runs as it would anywhere
			// (a version, a global setting, a check outside a repository).
		case errors.As(err, &ee):
			return &ExitError{Args: args, Code: ee.Code, Stderr: ee.Stderr}
		default:
			return deadline(ctx, tctx, err, args, timeout)
		}
	}
	if repo != nil {
		if err := repo.unchanged(); err != nil {
			return err
		}
		env = append(env, repo.environ()...)
	}
	if consume == nil {
		consume = func(r *bufio.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	}
	if sandboxed {
		return runBoxed(ctx, tctx, boxedRun{bin: bin, argv: full, env: env, o: o, repo: repo, args: args, timeout: timeout}, consume)
	}
	cmd := exec.CommandContext(tctx, bin, full...)
	cmd.Dir, cmd.Env, cmd.Stdin = o.Dir, env, o.Stdin
	cmd.WaitDelay = o.WaitDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = 2 * time.Second
	}
	stderr := &capWriter{limit: stderrLimit}
	cmd.Stderr = stderr
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot run git: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		done <- err
	}()
	cerr := consume(bufio.NewReaderSize(pr, 64<<10))
	if cerr != nil {
		pr.CloseWithError(ErrEnough) // git's writes fail from now on
		_ = cmd.Process.Kill()
	}
	werr := <-done
	pr.Close()
	if ctx.Err() != nil || tctx.Err() != nil {
		return deadline(ctx, tctx, tctx.Err(), args, timeout)
	}
	if cerr != nil {
		if errors.Is(cerr, ErrEnough) {
			return nil
		}
		return cerr
	}
	if werr != nil {
		if st := cmd.ProcessState; st != nil && st.Exited() {
			return &ExitError{Args: args, Code: st.ExitCode(), Stderr: stderr.String()}
		}
		if errors.Is(werr, exec.ErrWaitDelay) {
			return nil // git exited; a grandchild kept the pipe open
		}
		return fmt.Errorf("git %s failed: %w", args[0], werr)
	}
	return nil
}

// lookGit is the git executable o names.
func lookGit(o Options) (string, error) {
	name := o.Binary
	if name == "" {
		name = "git"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", &NotFoundError{Binary: name}
	}
	return bin, nil
}

// deadline turns the end of a context into the error callers expect.
func deadline(ctx, tctx context.Context, err error, args []string, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	if tctx.Err() != nil {
		return &TimeoutError{Args: args, Timeout: timeout}
	}
	return err
}
