package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The git plumbing shared by git_status and git_diff. Every git process
// runs hardened: a repository's own configuration (core.fsmonitor hooks,
// external diff drivers, textconv and clean/smudge filters, pagers,
// hooks, transports) can make git run programs, and the workspace may be
// hostile, so all of them are switched off on the command line, the
// environment is rebuilt from scratch, the process has a deadline and its
// output is read only as far as the caller needs.

// gitBinary names the git executable; tests point it at a missing or a
// fake one.
var gitBinary = "git"

// gitTimeout bounds each git process; exceeding it is TIMEOUT.
var gitTimeout = 30 * time.Second

// gitWaitDelay is how long a killed git may keep its pipes open (through a
// grandchild) before they are closed under it.
var gitWaitDelay = 2 * time.Second

const (
	gitStderrLimit = 16 << 10 // stderr kept for error messages
	gitTokenLimit  = 1 << 20  // longest NUL-terminated record parsed
)

// gitHardening are the global options put before every subcommand.
var gitHardening = []string{
	"--no-optional-locks",
	"--literal-pathspecs", // '*', '?', '[' and ':' in filters are plain characters
	"-c", "core.fsmonitor=false",
	"-c", "core.quotepath=off",
	"-c", "diff.external=",
	"-c", "core.pager=cat",
	"-c", "color.ui=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "status.submoduleSummary=false",
	// Lazy fetches of a partial clone would run a transport.
	"-c", "protocol.allow=never",
	"-c", "protocol.file.allow=never",
	"-c", "protocol.git.allow=never",
	"-c", "protocol.ssh.allow=never",
	"-c", "protocol.http.allow=never",
	"-c", "protocol.https.allow=never",
	"-c", "protocol.ext.allow=never",
}

// errGitEnough, returned by a consumer, stops git: the caller has read all
// it needs, the process is killed and its exit status ignored.
var errGitEnough = errors.New("enough git output")

// gitExitError is a git process that ran and failed.
type gitExitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitExitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return "git " + strings.Join(e.args, " ") + ": " + msg
}

// gitFailure turns an error from runGit into the profile's shape.
func gitFailure(err error) error {
	var ee *gitExitError
	if errors.As(err, &ee) {
		sub := ""
		if len(ee.args) > 0 {
			sub = ee.args[0]
		}
		return Errorf("GIT_ERROR", map[string]any{"command": "git " + sub, "exit_code": ee.code, "stderr": strings.TrimSpace(ee.stderr)},
			"git %s failed: %s", sub, firstLine(ee.stderr, ee.code))
	}
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	return Errorf("GIT_ERROR", nil, "git failed: %v", err)
}

func firstLine(s string, code int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return fmt.Sprintf("exit status %d", code)
	}
	return s
}

// gitEnv is the environment of every git process: nothing of the server's
// environment but what git needs to find itself and the user's own
// configuration (never GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_* …).
func gitEnv() []string {
	env := []string{
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_ALLOW_PROTOCOL=none", // overrides any protocol.*.allow: no transport at all
		"GIT_NO_LAZY_FETCH=1",
		"GIT_ADVICE=0",
		"LC_ALL=C", // stable messages; paths are bytes either way
	}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// gitLookup finds the git binary: missing is GIT_ERROR.
func gitLookup() (string, error) {
	p, err := exec.LookPath(gitBinary)
	if err != nil {
		return "", Errorf("GIT_ERROR", map[string]any{"binary": gitBinary}, "git binary not found: %s is not installed or not on PATH", gitBinary)
	}
	return p, nil
}

// runGit runs git (hardened) in dir with the given environment. consume
// reads stdout; it may return errGitEnough to stop git early. A nil
// consume discards stdout. Errors: *Error (TIMEOUT, GIT_ERROR) or
// *gitExitError for a non-zero exit.
func runGit(ctx context.Context, dir string, env []string, consume func(*bufio.Reader) error, args ...string) error {
	bin, err := gitLookup()
	if err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, bin, append(append([]string(nil), gitHardening...), args...)...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	cmd.WaitDelay = gitWaitDelay
	stderr := &capWriter{limit: gitStderrLimit}
	cmd.Stderr = stderr
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		return Errorf("GIT_ERROR", map[string]any{"binary": bin}, "cannot run git: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		done <- err
	}()
	if consume == nil {
		consume = func(r *bufio.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	}
	cerr := consume(bufio.NewReaderSize(pr, 64<<10))
	if cerr != nil {
		// Stop git: no more reading (its writes fail) and kill it.
		pr.CloseWithError(errGitEnough)
		_ = cmd.Process.Kill()
	}
	werr := <-done
	pr.Close()
	if ctx.Err() != nil || tctx.Err() != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return Errorf("GIT_ERROR", nil, "git %s interrupted: the request was cancelled", args[0])
		}
		return Errorf("TIMEOUT", map[string]any{"command": "git " + args[0], "timeout_ms": gitTimeout.Milliseconds()},
			"git %s timed out after %s", args[0], gitTimeout)
	}
	if cerr != nil {
		if errors.Is(cerr, errGitEnough) {
			return nil
		}
		return cerr
	}
	if werr != nil {
		var xe *exec.ExitError
		if errors.As(werr, &xe) {
			return &gitExitError{args: args, code: xe.ExitCode(), stderr: stderr.String()}
		}
		if errors.Is(werr, exec.ErrWaitDelay) {
			return nil // git exited; a grandchild kept the pipe open
		}
		return Errorf("GIT_ERROR", nil, "git %s failed: %v", args[0], werr)
	}
	return nil
}

// gitOutput runs git and returns its stdout, which must fit in limit bytes
// (else GIT_ERROR).
func gitOutput(ctx context.Context, dir string, env []string, limit int, args ...string) ([]byte, error) {
	var out []byte
	err := runGit(ctx, dir, env, func(r *bufio.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		out = b
		if err != nil {
			return err
		}
		if len(b) > limit {
			return fmt.Errorf("git %s: output exceeds %d bytes", args[0], limit)
		}
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// capWriter keeps the first limit bytes written to it.
type capWriter struct {
	limit int
	buf   bytes.Buffer
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.limit - w.buf.Len(); room > 0 {
		if len(p) > room {
			w.buf.Write(p[:room])
		} else {
			w.buf.Write(p)
		}
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }

// readZ reads one NUL-terminated record (without the NUL). At EOF it
// returns io.EOF; a final record without NUL is returned as is.
func readZ(r *bufio.Reader) (string, error) {
	var acc []byte
	for {
		chunk, err := r.ReadSlice(0)
		if len(acc)+len(chunk) > gitTokenLimit {
			return "", fmt.Errorf("git output record longer than %d bytes", gitTokenLimit)
		}
		switch {
		case err == nil:
			if acc == nil {
				return string(chunk[:len(chunk)-1]), nil
			}
			acc = append(acc, chunk[:len(chunk)-1]...)
			return string(acc), nil
		case errors.Is(err, bufio.ErrBufferFull):
			acc = append(acc, chunk...)
		case errors.Is(err, io.EOF):
			acc = append(acc, chunk...)
			if len(acc) == 0 {
				return "", io.EOF
			}
			return string(acc), nil
		default:
			return "", err
		}
	}
}

// gitRepo is the workspace seen from git.
type gitRepo struct {
	root *Root
	// prefix is the workspace's path below the work tree's top level,
	// POSIX, with a trailing slash; "" when the workspace is the top level.
	prefix string
	env    []string
}

// gitOpen finds the work tree holding the workspace: nil (and no error)
// when the workspace is not inside one. The git binary missing is
// GIT_ERROR.
func gitOpen(ctx context.Context, r *Root) (*gitRepo, error) {
	env := gitEnv()
	out, err := gitOutput(ctx, r.Path, env, 1<<16, "rev-parse", "--is-inside-work-tree", "--show-prefix")
	if err != nil {
		var ee *gitExitError
		if errors.As(err, &ee) && strings.Contains(ee.stderr, "not a git repository") {
			return nil, nil
		}
		return nil, gitFailure(err)
	}
	lines := strings.SplitN(string(out), "\n", 3)
	if strings.TrimSpace(lines[0]) != "true" {
		return nil, nil
	}
	prefix := ""
	if len(lines) > 1 {
		prefix = lines[1]
	}
	filters, err := gitFilterOverrides(ctx, r.Path, env)
	if err != nil {
		return nil, err
	}
	return &gitRepo{root: r, prefix: prefix, env: append(env, filters...)}, nil
}

// gitFilterOverrides neutralises every clean/smudge/process filter driver
// the configuration defines (a .gitattributes file picks them, and git
// status and diff run the clean filter on work tree files). Keys go
// through GIT_CONFIG_KEY_n, which—unlike -c—takes driver names holding
// '='.
func gitFilterOverrides(ctx context.Context, dir string, env []string) ([]string, error) {
	out, err := gitOutput(ctx, dir, env, 4<<20, "config", "-z", "--get-regexp", `^filter\.`)
	if err != nil {
		var ee *gitExitError
		if errors.As(err, &ee) && ee.code == 1 { // no such keys
			return nil, nil
		}
		return nil, gitFailure(err)
	}
	seen := map[string]bool{}
	var names []string
	for _, rec := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		if !strings.HasPrefix(key, "filter.") {
			continue
		}
		rest := key[len("filter."):]
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		if name := rest[:dot]; !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	var vars []string
	n := 0
	for _, name := range names {
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			vars = append(vars,
				"GIT_CONFIG_KEY_"+strconv.Itoa(n)+"=filter."+name+"."+kv[0],
				"GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+kv[1])
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	return append(vars, "GIT_CONFIG_COUNT="+strconv.Itoa(n)), nil
}

// rel turns a path relative to the work tree's top level into one
// relative to the workspace ("../x" for a path outside it, as a rename's
// source may be).
func (g *gitRepo) rel(p string) string {
	if g.prefix == "" {
		return p
	}
	if strings.HasPrefix(p, g.prefix) {
		return p[len(g.prefix):]
	}
	pre := strings.Split(strings.TrimSuffix(g.prefix, "/"), "/")
	segs := strings.Split(p, "/")
	i := 0
	for i < len(pre) && i < len(segs)-1 && pre[i] == segs[i] {
		i++
	}
	return strings.Repeat("../", len(pre)-i) + strings.Join(segs[i:], "/")
}
