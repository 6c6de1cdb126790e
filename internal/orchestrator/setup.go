package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Phases of a task's worktree set-up, in the Data["phase"] of their log
// events.
const (
	PhaseSetup   = "setup"
	PhaseCleanup = "cleanup"
)

// ErrTypeSetup is the error type of a task whose setup command failed.
const ErrTypeSetup = "setup_failed"

// cleanupTimeout bounds the cleanup command: end_task waits for it.
const cleanupTimeout = 5 * time.Minute

// settings returns the top of the user's checkout and the project's settings.
func (w *Worktrees) settings(ctx context.Context) (string, Settings, error) {
	ri, err := w.place(ctx)
	if err != nil {
		return "", Settings{}, err
	}
	s, err := loadSettings(ri.top, w.env)
	s.top = ri.top
	return ri.top, s, err
}

// copyInto copies the listed paths of the checkout at top into the
// worktree at dst (files, directories and symlinks, modes kept) and
// returns a log event for each. A path the checkout lacks is skipped and
// logged; one that cannot be copied is an error.
func copyInto(top, dst string, paths []string) ([]agent.Event, error) {
	var evs []agent.Event
	for _, p := range paths {
		now := time.Now().UTC()
		src := filepath.Join(top, p)
		if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
			evs = append(evs, phaseEvent(now, PhaseSetup, "copy: "+p+" is not in the checkout, skipped"))
			continue
		}
		// The entry may be a symlink (copied as one), but the directories
		// leading to it must not lead out of the checkout.
		if parent, err := filepath.EvalSymlinks(filepath.Dir(src)); err != nil || !within(parent, resolved(top)) {
			return nil, fault.New(fault.Invalid, "%s \"copy\": %s leads out of the checkout", settingsFile, p)
		}
		if err := copyTree(src, filepath.Join(dst, p)); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, fmt.Sprintf("failed to copy %s into the task worktree (%s \"copy\")", p, settingsFile))
		}
		evs = append(evs, phaseEvent(now, PhaseSetup, "copy: "+p))
	}
	return evs, nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			_ = os.Remove(to)
			return os.Symlink(target, to)
		case !d.Type().IsRegular():
			return nil // sockets, fifos, devices: nothing to copy
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return copyMode(path, to, info.Mode().Perm())
	})
}

func copyMode(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func phaseEvent(now time.Time, phase, text string) agent.Event {
	return agent.Event{Time: now, Kind: agent.KindLog, Text: text, Data: map[string]any{"phase": phase}}
}

// phaseParser logs a setup or cleanup command's output lines.
type phaseParser struct{ phase string }

func (p phaseParser) Line(line []byte, now time.Time) []agent.Event {
	return []agent.Event{phaseEvent(now, p.phase, string(line))}
}

func (p phaseParser) Finish(code int, now time.Time) []agent.Event {
	return []agent.Event{phaseEvent(now, p.phase, fmt.Sprintf("%s exited with code %d", p.phase, code))}
}

func (phaseParser) SessionID() string { return "" }

// runPhase runs a setup, check or cleanup command in spec.Dir as r's
// current process, its output logged as task id's events (runPhaseTo).
func (o *Orchestrator) runPhase(id string, r *run, phase string, c Command, spec agent.RunSpec) (outcome, error) {
	log := o.openLog(id)
	defer log.close()
	return o.runPhaseTo(r, phase, c, spec, log.add)
}

// runPhaseTo runs a setup, check or cleanup command in spec.Dir as r's
// current process, in the box of the repository's commands (see
// phaseBox) and with the environment of a COMMAND task (the task's
// config.pass_env) but the box's HOME and TMPDIR, its output handed to
// emit as events of the phase. The caller has checked that the user
// trusts it.
func (o *Orchestrator) runPhaseTo(r *run, phase string, c Command, spec agent.RunSpec, emit func([]agent.Event)) (outcome, error) {
	ctx := context.Background()
	box, err := o.phaseBoxFor(ctx, phase, spec.Dir)
	if err != nil {
		return outcome{}, err
	}
	env, err := agent.Environ(agent.Command{}, spec, nil, o.opts.Env.Environ())
	if err != nil {
		return outcome{}, err
	}
	cmd, outR, errR, err := startIn(agent.Invocation{Argv: c, Env: box.environ(env)}, spec.Dir, box.policy)
	if err != nil {
		return outcome{}, err
	}
	if !r.attach(cmd) {
		abandon(cmd, outR, errR)
		return outcome{cancelled: true}, nil
	}
	emit([]agent.Event{phaseEvent(time.Now().UTC(), phase, phase+": "+c.String())})
	return r.execute(outR, errR, phaseParser{phase}, o.opts.Grace, func(evs []agent.Event) {
		for i := range evs {
			if evs[i].Data == nil {
				evs[i].Data = map[string]any{}
			}
			evs[i].Data["phase"] = phase // stderr lines too
		}
		emit(evs)
	}), nil
}
