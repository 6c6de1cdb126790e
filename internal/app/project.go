// Package app is the application core: a Project (project.go) is what
// every surface opens to reach a project's tracker, its tasks and the
// ruleset library. The tasks are the orchestrator's, which follows each
// task's issue through the tracker as this package gives it (issues.go):
// a task started from an issue gets a prompt assembled from the tracker
// and the ruleset library (prompt.go), and the issue follows the task (in
// progress, its reviews and failure recorded, closed by the merge, handed
// back by an end).
package app

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Project is the application core of one project: what every surface
// (the CLI, each `sudocode mcp …` server, `sudocode serve` and its
// dashboard) opens, the same way, to reach the project's tracker, its
// tasks and the ruleset library. One process holds one Project per
// project, so its surfaces share one tracker store and one orchestrator,
// which keeps each task's issue with it (issues.go): a task's issue is
// updated once, whichever surface started it.
type Project struct {
	// Dir is the project directory, absolute.
	Dir string
	// Tracker is the project's tracker, found walking up from Dir (or
	// where the environment says, see Options.TrackerFromEnv).
	Tracker *Tracker
	// Orchestrator runs the project's tasks and keeps their issues with
	// them; nil when tasks were not asked for or cannot run here
	// (TasksUnavailable then says why).
	Orchestrator     *orchestrator.Orchestrator
	TasksUnavailable string
	// Rulesets is the ruleset library; its Store is nil without one.
	Rulesets rulesets.Library

	closeTasks func()
}

// Options configure Open.
type Options struct {
	// Dir is the project directory; empty is WorkDir, and a relative one
	// is taken from WorkDir.
	Dir string
	// WorkDir and Env are the working directory and the environment of
	// the command that opens the project: the core reads neither from the
	// process, so that one process can open projects for commands that
	// run in different directories and environments. Env is also the
	// user's environment the tasks run in (orchestrator.Options.Env); zero
	// is the process's.
	WorkDir string
	Env     userenv.Env
	// Actor is who changes are recorded as when a call names nobody.
	Actor string
	// TrackerFromEnv finds the tracker where SUDOCODE_DB or
	// SUDOCODE_WORKING_DIR say (in Env), else from WorkDir (as the
	// tracker's CLI and its stdio MCP server do), instead of from Dir.
	TrackerFromEnv bool
	// Rulesets is the ruleset store, or nil; the caller closes it after
	// Close.
	Rulesets rulesets.Store

	// Tasks opens the orchestrator.
	Tasks bool
	// TaskData is the task database's directory; empty is
	// orchestrator.DataDir, and outside a git repository the tasks are
	// then unavailable.
	TaskData string
	// Worktrees is the root of the task worktrees; empty is
	// SUDOCODE_WORKTREES (in Env), the project's setting or the default.
	Worktrees string
	// TaskActor is who the tasks' changes of issues are recorded as;
	// empty is Actor.
	TaskActor string
	// TrackerCommand is the argv of the tracker's MCP server that agents
	// get (orchestrator.Options.Tracker); nil: none.
	TrackerCommand []string
	// Warm prepares a worktree ahead of the first task (a long-lived
	// server wants it; a one-shot command does not).
	Warm bool
	// Fleet runs the tasks' agents on the fleet's workers
	// (orchestrator.Options.Fleet and the rest), reading on the runs a
	// server before it left to them; nil runs them here.
	Fleet *orchestrator.FleetSetup
}

// Open opens the project in o.Dir. Only a directory that is not one is an
// error: tasks that cannot run there leave Orchestrator nil with the
// reason, and a missing tracker is each tracker call's error (so that
// `init` can make it later).
func Open(ctx context.Context, o Options) (*Project, error) {
	dir, err := ProjectDir(o.Dir, o.WorkDir)
	if err != nil {
		return nil, err
	}
	tr := NewTracker(dir, o.Actor)
	if o.TrackerFromEnv {
		tr = NewTrackerIn(o.WorkDir, o.Env.Getenv, o.Actor)
	}
	p := &Project{Dir: dir, Tracker: tr, Rulesets: rulesets.Library{Store: o.Rulesets, Actor: o.Actor}}
	if o.Tasks {
		p.openTasks(ctx, o)
	}
	return p, nil
}

// ProjectDir is dir (default the working directory wd) taken from wd, or
// why it cannot be a project.
func ProjectDir(dir, wd string) (string, error) {
	abs := dir
	if !filepath.IsAbs(dir) {
		if !filepath.IsAbs(wd) {
			return "", fault.New(fault.Unavailable, "cannot find the working directory")
		}
		abs = filepath.Join(wd, dir)
	}
	abs = filepath.Clean(abs)
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fault.New(fault.Invalid, "project %s is not a directory", abs)
	}
	return abs, nil
}

// openTasks opens the orchestrator, following the tasks' issues in the
// project's tracker, or notes why tasks cannot run.
func (p *Project) openTasks(ctx context.Context, o Options) {
	data := o.TaskData
	if data == "" {
		ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
		d, err := orchestrator.DataDir(ctx2, p.Dir)
		cancel()
		if err != nil {
			p.TasksUnavailable = err.Error()
			return
		}
		data = d
	}
	opts := orchestrator.Options{Repo: p.Dir, Actor: o.Actor, Worktrees: o.Worktrees, Tracker: o.TrackerCommand, Env: o.Env}
	o.Fleet.Apply(&opts)
	orch, closeOrch, err := orchestrator.Open(ctx, data, opts)
	if err != nil {
		p.TasksUnavailable = err.Error()
		return
	}
	if o.Warm {
		orch.Prepare()
	}
	actor := o.TaskActor
	if actor == "" {
		actor = o.Actor
	}
	var rules Rules // a nil Store is no library, not a library that fails
	if o.Rulesets != nil {
		rules = o.Rulesets
	}
	orch.FollowIssues(TaskIssues(p.Tracker, rules, actor))
	if err := orch.ResumeFleet(ctx); err != nil {
		closeOrch()
		p.TasksUnavailable = "the runs on the fleet's workers cannot be read on: " + err.Error()
		return
	}
	p.closeTasks = closeOrch
	p.Orchestrator = orch
}

// Tasks returns the project's tasks, or the reason they are unavailable
// as an error.
func (p *Project) Tasks() (*orchestrator.Orchestrator, error) {
	if p.Orchestrator == nil {
		reason := p.TasksUnavailable
		if reason == "" {
			reason = "the project was opened without its tasks"
		}
		return nil, fault.New(fault.Unavailable, "tasks are unavailable in %s: %s", p.Dir, reason)
	}
	return p.Orchestrator, nil
}

// Close stops every running agent, and closes the stores it opened (not
// the ruleset store, which is the caller's).
func (p *Project) Close() {
	if p.closeTasks != nil {
		p.closeTasks()
	}
	p.Tracker.Close()
}
