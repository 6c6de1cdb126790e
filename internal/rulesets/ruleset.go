// Package rulesets is the domain of the ruleset library: a named markdown
// document with a description and tags that AI editors share. It holds the
// types, the validation rules and message texts of the MCP Ruleset Server
// specification (the user's requirement, "the specification" below; its
// contract in docs/servers.md#rulesets), and the Store interface that the
// adapters implement.
package rulesets

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Ruleset is one stored ruleset. Times are UTC with second precision.
type Ruleset struct {
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Tags         []string  `json:"tags"`
	Markdown     string    `json:"markdown"`
	CreatedAt    time.Time `json:"created_at"`
	LastModified time.Time `json:"last_modified"`
	Scope
}

// Summary is a ruleset without its markdown, as lists show it.
type Summary struct {
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Tags         []string  `json:"tags"`
	CreatedAt    time.Time `json:"created_at"`
	LastModified time.Time `json:"last_modified"`
}

// Summary drops the markdown.
func (r Ruleset) Summary() Summary {
	return Summary{Name: r.Name, Description: r.Description, Tags: r.Tags, CreatedAt: r.CreatedAt, LastModified: r.LastModified}
}

// Patch is an upsert: nil fields are left as they are on an update and are
// required (description, markdown) on a create.
type Patch struct {
	Name        string
	Description *string
	Markdown    *string
	Tags        []string // nil: unchanged (empty on create)
	SetTags     bool     // Tags was given, even if empty
	Globs       []string // nil: unchanged (none on create)
	SetGlobs    bool     // Globs was given, even if empty
	Always      *bool    // nil: unchanged (false on create)
	Targets     []string // nil: unchanged (none on create)
	SetTargets  bool     // Targets was given, even if empty
	By          string   // who makes the change, for the history
	Restored    int      // the version this change brings back, recorded in the history (0: none)
}

// Store keeps rulesets. Implementations must make Upsert atomic per name:
// when two upserts race on a missing name, one creates it and the other
// updates what the first created.
type Store interface {
	// Get returns ErrNotFound's code when the name is absent.
	Get(ctx context.Context, name string) (Ruleset, error)
	// Upsert creates or updates; now stamps last_modified (and created_at on create).
	// It reports whether the ruleset was created.
	Upsert(ctx context.Context, p Patch, now time.Time) (created bool, err error)
	// Create stores r only if its name is free; otherwise a Conflict.
	Create(ctx context.Context, r Ruleset, by string) error
	// Delete removes a ruleset; a NotFound when it is absent.
	Delete(ctx context.Context, name, by string, now time.Time) error
	// History returns up to limit of name's changes, newest first. Every
	// Upsert, Create and Delete that changes something records its Change
	// (PatchChanges, CreateChange, DeleteChange) atomically with it, and a
	// store keeps the newest MaxHistory changes of each name.
	History(ctx context.Context, name string, limit int) ([]Change, error)
	// Search returns the summaries whose names match a glob in which only
	// '*' and '?' are special, oldest first (then by name). "*" lists
	// everything.
	Search(ctx context.Context, pattern string) ([]Summary, error)
	// SearchPage is a page of Search's result: up to limit summaries (limit
	// is at least 1) after the position after (nil: from the start), with
	// the number of matches in all and whether more follow the page.
	SearchPage(ctx context.Context, pattern string, after *PageKey, limit int) (Page, error)
	// Names returns every name, sorted.
	Names(ctx context.Context) ([]string, error)
	Close() error
}

// SortSummaries orders summaries as lists show them: oldest first, then by
// name, so a library reads in the order it was built.
func SortSummaries(items []Summary) {
	slices.SortFunc(items, func(a, b Summary) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// Limits that keep one ruleset from exhausting a store or a model's context.
const (
	MaxNameLen        = 128
	MaxDescriptionLen = 4 << 10
	MaxMarkdownLen    = 1 << 20
	MaxTags           = 64
	MaxTagLen         = 64
)

var snakeCase = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`) })

// ValidateName enforces the snake_case rule: lowercase letters, digits and
// single underscores, not at either end.
func ValidateName(name string) error {
	if len(name) > MaxNameLen || !snakeCase().MatchString(name) {
		return fault.New(fault.Invalid, "invalid ruleset name '%s': must use snake_case (lowercase letters, numbers, and underscores only)", name).
			WithHint("use a name like python_style_guide")
	}
	return nil
}

// Hints that name an MCP tool; the CLI gives its own commands instead.
const (
	HintList   = "use list_rulesets to see the available names"
	HintUpsert = "use upsert_ruleset to change an existing ruleset"
)

// NotFound is the error for an absent ruleset.
func NotFound(name string) *fault.Error {
	return fault.New(fault.NotFound, "ruleset '%s' not found", name).WithHint(HintList)
}

// Now is the current time at the precision rulesets store.
func Now() time.Time { return time.Now().UTC().Truncate(time.Second) }
