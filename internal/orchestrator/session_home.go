package orchestrator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// sessionHome is where an agent CLI keeps its sessions' files on this
// machine, for the CLIs whose resume finds a session by a file placed
// there from another machine: Claude Code keeps each session in
// projects/<its working directory escaped>/<id>.jsonl under its
// configuration directory, Codex in
// sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl under CODEX_HOME. The
// other CLIs keep theirs in databases (OpenCode) or by project hash
// with state beside it (Gemini CLI): their runs start a new session.
// Every path below root is made here from a fixed pattern, never from a
// name read from a file, and opened through root, never following a link
// out of it: the agent writes in root, and a saved file comes from a
// remote.
type sessionHome struct {
	kind string
	root string // the CLI's own directory
	cwd  string // the worktree the agent runs in
}

var (
	sessionUUID = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`
	claudeFile  = regexp.MustCompile(`^(` + sessionUUID + `)\.jsonl$`)
	codexFile   = regexp.MustCompile(`^rollout-([0-9]{4})-([0-9]{2})-([0-9]{2})T[0-9]{2}-[0-9]{2}-[0-9]{2}-(` + sessionUUID + `)\.jsonl$`)
	uuidOnly    = regexp.MustCompile(`^` + sessionUUID + `$`)
)

// newSessionHome is the session home of an agent of kind running in cwd
// with env, or nil when its CLI does not resume a transplanted session.
func newSessionHome(kind, cwd string, env []string) *sessionHome {
	if kind != agent.ToolClaudeCode && kind != agent.ToolCodex {
		return nil
	}
	m := envMap(env)
	home := m["HOME"]
	if !filepath.IsAbs(home) {
		return nil
	}
	dirs, _ := agent.OwnPaths(kind, func(k string) string { return m[k] }, home)
	if len(dirs) == 0 {
		return nil
	}
	return &sessionHome{kind: kind, root: dirs[0], cwd: cwd}
}

// claudeProject is the folder Claude Code keeps the sessions of a working
// directory in: the path with every character but a letter or a digit
// made a dash. A longer one it shortens with a hash of its own: none then.
func claudeProject(cwd string) (string, bool) {
	p := []byte(cwd)
	for i, c := range p {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			p[i] = '-'
		}
	}
	return string(p), len(p) <= 200
}

// find is where session id's file is below root, when it is there.
func (h *sessionHome) find(id string) (rel string, ok bool) {
	if !uuidOnly.MatchString(id) {
		return "", false
	}
	switch h.kind {
	case agent.ToolClaudeCode:
		proj, ok := claudeProject(h.cwd)
		if !ok {
			return "", false
		}
		rel = path.Join("projects", proj, id+".jsonl")
	default: // Codex: the day's folder is the session's start
		m, _ := filepath.Glob(filepath.Join(h.root, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
		if len(m) != 1 {
			return "", false
		}
		r, err := filepath.Rel(h.root, m[0])
		if err != nil || !codexFile.MatchString(filepath.Base(r)) {
			return "", false
		}
		rel = filepath.ToSlash(r)
	}
	if _, err := h.stat(rel); err != nil {
		return "", false
	}
	return rel, true
}

// stat is the stamp of the regular file at rel below root.
func (h *sessionHome) stat(rel string) (sessionStamp, error) {
	r, err := os.OpenRoot(h.root)
	if err != nil {
		return sessionStamp{}, err
	}
	defer r.Close()
	fi, err := r.Lstat(rel)
	if err != nil {
		return sessionStamp{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSessionBytes {
		return sessionStamp{}, fmt.Errorf("session file %s: not a regular file of at most %d bytes", rel, maxSessionBytes)
	}
	return stampOf(path.Base(rel), fi), nil
}

// read reads the regular file at rel below root.
func (h *sessionHome) read(rel string) ([]byte, error) {
	r, err := os.OpenRoot(h.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("session file %s: not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSessionBytes+1))
	if err == nil && len(b) > maxSessionBytes {
		err = fmt.Errorf("session file %s: over %d bytes", rel, maxSessionBytes)
	}
	return b, err
}

// place writes a saved session file, named name, where the CLI finds it
// for the worktree here, and returns the session's id.
func (h *sessionHome) place(name string, b []byte) (string, error) {
	var rel, id string
	switch h.kind {
	case agent.ToolClaudeCode:
		m := claudeFile.FindStringSubmatch(name)
		proj, ok := claudeProject(h.cwd)
		if m == nil || !ok {
			return "", errors.New("not a Claude Code session file, or a working directory it names otherwise")
		}
		id, rel = m[1], path.Join("projects", proj, name)
	default:
		m := codexFile.FindStringSubmatch(name)
		if m == nil {
			return "", errors.New("not a Codex session file")
		}
		id, rel = m[4], path.Join("sessions", m[1], m[2], m[3], name)
	}
	if len(b) > maxSessionBytes {
		return "", fmt.Errorf("session file of %d bytes, over %d", len(b), maxSessionBytes)
	}
	if err := os.MkdirAll(h.root, 0o700); err != nil {
		return "", err
	}
	r, err := os.OpenRoot(h.root)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := r.MkdirAll(path.Dir(rel), 0o700); err != nil {
		return "", err
	}
	// A new file, never one found there: a link an agent left at that
	// name would have the write land on its target (in root, but any
	// file of the CLI's, its settings say).
	tmp := rel + ".sudocode-new"
	_ = r.Remove(tmp)
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Remove(tmp)
		return "", err
	}
	if err := r.Rename(tmp, rel); err != nil {
		_ = r.Remove(tmp)
		return "", err
	}
	return id, nil
}
