package rulesets

import (
	"context"
	"fmt"

	"github.com/sudocode/sudocode/internal/fault"
)

// A ruleset's versions are its recorded changes: each create, update and
// restore keeps the ruleset as it left it, numbered from 1 per name (a
// deletion takes a number too, and has no content). The newest MaxHistory
// changes are kept, so the versions are those of the last MaxHistory
// changes.

// Version returns name as version v left it, and that change.
func (l Library) Version(ctx context.Context, name string, v int) (Ruleset, Change, error) {
	changes, err := l.History(ctx, name, MaxHistory)
	if err != nil {
		return Ruleset{}, Change{}, err
	}
	var kept []int
	for _, c := range changes {
		if c.Version == v && c.State != nil {
			return *c.State, c, nil
		}
		if c.State != nil {
			kept = append(kept, c.Version)
		}
	}
	e := fault.New(fault.NotFound, "version %d of ruleset '%s' not found", v, name)
	switch {
	case len(kept) == 0:
		return Ruleset{}, Change{}, e.WithHint("no version of it is kept: versions are kept of the changes made since the library records them")
	case len(kept) == 1:
		return Ruleset{}, Change{}, e.WithHint(fmt.Sprintf("the only version kept is %d", kept[0]))
	}
	return Ruleset{}, Change{}, e.WithHint(fmt.Sprintf("versions kept: %d to %d (see the ruleset's history; a deletion has no content)", kept[len(kept)-1], kept[0]))
}

// Diff is the unified diff of name's documents at versions from and to
// (0: the ruleset as it is now); "" when they are the same.
func (l Library) Diff(ctx context.Context, name string, from, to int) (string, error) {
	side := func(v int) (Ruleset, string, error) {
		if v == 0 {
			r, err := l.Get(ctx, name)
			return r, name + " (current)", l.notFound(ctx, name, err)
		}
		r, c, err := l.Version(ctx, name, v)
		return r, fmt.Sprintf("%s version %d (%s by %s, %s)", name, v, c.Action, c.By, Display(c.Time)), err
	}
	a, an, err := side(from)
	if err != nil {
		return "", err
	}
	b, bn, err := side(to)
	if err != nil {
		return "", err
	}
	return UnifiedDiff(an, bn, FormatDocument(a), FormatDocument(b)), nil
}

// Restore makes name what version v left it, as a new change by the
// library's actor that the history records as restoring v. A deleted
// ruleset comes back.
func (l Library) Restore(ctx context.Context, name string, v int) (created bool, err error) {
	r, _, err := l.Version(ctx, name, v)
	if err != nil {
		return false, err
	}
	always := r.Always
	return l.Upsert(ctx, Patch{Name: name, Description: &r.Description, Markdown: &r.Markdown, Tags: nonNil(r.Tags), SetTags: true,
		Globs: nonNil(r.Globs), SetGlobs: true, Always: &always, Targets: nonNil(r.Targets), SetTargets: true, Restored: v})
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
