package rulesets

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/fault"
)

// Library applies the specification's rules on top of a Store: it validates
// input before anything is stored and words every error as the specification
// does. The MCP server and the CLI both use it.
type Library struct {
	Store Store
	Clock func() time.Time // nil: Now
	// Actor is who the changes are recorded as in the rulesets' history:
	// the MCP caller, or the local user of the CLI.
	Actor string
}

func (l Library) now() time.Time {
	if l.Clock != nil {
		return l.Clock().UTC().Truncate(time.Second)
	}
	return Now()
}

// Get returns one ruleset.
func (l Library) Get(ctx context.Context, name string) (Ruleset, error) {
	if err := ValidateName(name); err != nil {
		return Ruleset{}, err
	}
	return l.Store.Get(ctx, name)
}

// Upsert creates or updates a ruleset; see Patch.
func (l Library) Upsert(ctx context.Context, p Patch) (created bool, err error) {
	// An empty text is treated as absent: it can never blank a stored field,
	// and on a create it is reported as the missing field it is.
	if p.Description != nil && *p.Description == "" {
		p.Description = nil
	}
	if p.Markdown != nil && *p.Markdown == "" {
		p.Markdown = nil
	}
	if err := validatePatch(p); err != nil {
		return false, err
	}
	p.By = l.Actor
	return l.Store.Upsert(ctx, p, l.now())
}

// Create stores a new ruleset and refuses a name that is taken.
func (l Library) Create(ctx context.Context, r Ruleset) error {
	if err := ValidateName(r.Name); err != nil {
		return err
	}
	if r.Description == "" {
		return errDescriptionRequired
	}
	if r.Markdown == "" {
		return errMarkdownRequired
	}
	if err := validatePatch(Patch{Name: r.Name, Description: &r.Description, Markdown: &r.Markdown, Tags: r.Tags, Globs: r.Globs, Targets: r.Targets}); err != nil {
		return err
	}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	r.CreatedAt = l.now()
	r.LastModified = r.CreatedAt
	err := l.Store.Create(ctx, r, l.Actor)
	if fault.Is(err, fault.Conflict) {
		names, lerr := l.Store.Names(ctx)
		if lerr != nil {
			return lerr
		}
		return fault.New(fault.Conflict, "ruleset '%s' already exists. Please choose a different name. Existing rulesets: [%s]", r.Name, nameList(names)).
			WithHint(HintUpsert)
	}
	return err
}

// Delete removes a ruleset; when it is absent the error lists what exists.
func (l Library) Delete(ctx context.Context, name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	return l.notFound(ctx, name, l.Store.Delete(ctx, name, l.Actor, l.now()))
}

// notFound words a NotFound of name with the names that exist; other
// errors pass.
func (l Library) notFound(ctx context.Context, name string, err error) error {
	if !fault.Is(err, fault.NotFound) {
		return err
	}
	names, lerr := l.Store.Names(ctx)
	if lerr != nil {
		return lerr
	}
	return fault.New(fault.NotFound, "ruleset '%s' not found. Existing rulesets: [%s]", name, nameList(names))
}

// List returns every ruleset's summary, oldest first.
func (l Library) List(ctx context.Context) ([]Summary, error) {
	return l.Store.Search(ctx, "*")
}

// Search returns the summaries whose names match pattern (only '*' and '?'
// are special), oldest first.
func (l Library) Search(ctx context.Context, pattern string) ([]Summary, error) {
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	return l.Store.Search(ctx, pattern)
}

var (
	errDescriptionRequired = fault.New(fault.Invalid, "description is required for new rulesets").
				WithHint("a new ruleset needs name, description and markdown")
	errMarkdownRequired = fault.New(fault.Invalid, "markdown is required for new rulesets").
				WithHint("a new ruleset needs name, description and markdown")
)

// Errors the stores return when a create lacks a field.
var (
	ErrDescriptionRequired error = errDescriptionRequired
	ErrMarkdownRequired    error = errMarkdownRequired
)

func validatePatch(p Patch) error {
	if err := ValidateName(p.Name); err != nil {
		return err
	}
	if p.Description != nil {
		if err := checkText("description", *p.Description, MaxDescriptionLen); err != nil {
			return err
		}
		if strings.ContainsAny(*p.Description, "\r\n") {
			return fault.New(fault.Invalid, "description must be a single line").
				WithHint("put longer text in the markdown")
		}
	}
	if p.Markdown != nil {
		if err := checkText("markdown", *p.Markdown, MaxMarkdownLen); err != nil {
			return err
		}
	}
	if len(p.Tags) > MaxTags {
		return fault.New(fault.Invalid, "too many tags (%d; the limit is %d)", len(p.Tags), MaxTags)
	}
	for _, t := range p.Tags {
		if t == "" || strings.TrimSpace(t) != t || len(t) > MaxTagLen || strings.ContainsAny(t, "\r\n") {
			return fault.New(fault.Invalid, "invalid tag %q: tags are non-empty single words or phrases of at most %d bytes, without surrounding spaces", t, MaxTagLen)
		}
	}
	if err := ValidateGlobs(p.Globs); err != nil {
		return err
	}
	return ValidateTargets(p.Targets)
}

// checkText refuses text that is not UTF-8 or is over the limit.
func checkText(field, s string, limit int) error {
	switch {
	case len(s) > limit:
		return fault.New(fault.Invalid, "%s is too large (%d bytes; the limit is %d)", field, len(s), limit)
	case !utf8.ValidString(s):
		return fault.New(fault.Invalid, "%s is not valid UTF-8", field)
	}
	return nil
}

// maxListedNames caps the names an error lists, so that an error on a large
// library stays small.
const maxListedNames = 100

func nameList(names []string) string {
	if len(names) <= maxListedNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... and %d more", strings.Join(names[:maxListedNames], ", "), len(names)-maxListedNames)
}

// All returns every ruleset in full, by name; one deleted meanwhile is
// left out.
func (l Library) All(ctx context.Context) ([]Ruleset, error) { return AllOf(ctx, l.Store) }

// Reader is the part of a Store that reads whole rulesets.
type Reader interface {
	Get(ctx context.Context, name string) (Ruleset, error)
	Names(ctx context.Context) ([]string, error)
}

// AllOf returns every ruleset of r in full, by name; one deleted
// meanwhile is left out.
func AllOf(ctx context.Context, r Reader) ([]Ruleset, error) {
	names, err := r.Names(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Ruleset, 0, len(names))
	for _, n := range names {
		rs, err := r.Get(ctx, n)
		if fault.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rs)
	}
	return out, nil
}
