package gitx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
)

// warmBoxes are sandboxed git's boxes kept between calls, one per
// policy: a status or a diff is then a fork and exec in a box already
// built. Calls that also write a directory the caller names go through
// them too: it is the repository's worktree directory, the same for
// every task (adding a task's worktree, checking out the next warm one),
// and a box built cold costs the same two starts of this binary as one
// kept. A temporary index outside the repository is a place of that call
// alone: its box would only wait to be ended, so it starts cold.
var warmBoxes = sandbox.NewWarm()

// boxedRun is one sandboxed git process.
type boxedRun struct {
	bin     string
	argv    []string // after the binary
	env     []string
	o       Options
	repo    *Repo
	args    []string // as the caller gave them, for errors
	timeout time.Duration
}

// runBoxed runs git in the sandbox, on pipes of its own (a warm box
// takes the command's descriptors, not Go's copying), in a session of
// its own, killed with everything it started when ctx or the timeout
// ends or consume has read enough.
func runBoxed(ctx, tctx context.Context, r boxedRun, consume func(*bufio.Reader) error) error {
	// A place inside the repository's own is granted with them: a call
	// that writes only there (a temporary index in the git directory) uses
	// a warm box too.
	tmpIndex := slices.DeleteFunc(indexDirs(r.o.Env), r.repo.grants)
	writable := slices.Concat(slices.DeleteFunc(slices.Clone(r.o.Writable), r.repo.grants), tmpIndex)
	cmd := exec.Command(r.bin, r.argv...)
	cmd.Dir, cmd.Env = r.o.Dir, r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var closeAfterStart []*os.File
	if r.o.Stdin != nil {
		inR, inW, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("cannot run git: %w", err)
		}
		go func() {
			io.Copy(inW, r.o.Stdin)
			inW.Close()
		}()
		cmd.Stdin = inR
		closeAfterStart = append(closeAfterStart, inR)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("cannot run git: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("cannot run git: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	closeAfterStart = append(closeAfterStart, outW, errW)
	sc := sandbox.Command(cmd, policy(r.repo, r.bin, writable))
	if len(tmpIndex) == 0 {
		sc.Warm = warmBoxes
	}
	err = sc.Start()
	for _, f := range closeAfterStart {
		f.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if ctx.Err() != nil || tctx.Err() != nil {
			// The deadline came while the sandbox was still starting git.
			return deadline(ctx, tctx, tctx.Err(), r.args, r.timeout)
		}
		return fmt.Errorf("cannot run git: %w", err)
	}
	stop := context.AfterFunc(tctx, func() { sc.Kill() })
	defer stop()
	stderr := &capWriter{limit: stderrLimit}
	stderrDone := make(chan struct{})
	go func() {
		io.Copy(stderr, errR)
		close(stderrDone)
	}()
	cerr := consume(bufio.NewReaderSize(outR, 64<<10))
	if cerr != nil {
		sc.Kill() // git, and with it everything it started
	}
	outR.Close() // git's writes fail from now on
	werr := sc.Wait()
	// The box ends what git left before Wait returns: stderr is closed.
	<-stderrDone
	errR.Close()
	if ctx.Err() != nil || tctx.Err() != nil {
		return deadline(ctx, tctx, tctx.Err(), r.args, r.timeout)
	}
	if cerr != nil {
		if errors.Is(cerr, ErrEnough) {
			return nil
		}
		return cerr
	}
	if werr != nil {
		if code, sig := sc.ExitStatus(); sig == 0 && code >= 0 {
			return &ExitError{Args: r.args, Code: code, Stderr: stderr.String()}
		}
		return fmt.Errorf("git %s failed: %w", r.args[0], werr)
	}
	return nil
}
