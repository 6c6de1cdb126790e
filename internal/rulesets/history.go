package rulesets

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// A ruleset's history is who changed it, when and how: the author of each
// change a team makes to a shared library. The stores write a change with
// the change itself, atomically, and keep the newest MaxHistory of each
// name; a deleted ruleset's history stays, and goes on if the name is
// created again.

// MaxHistory is how many changes of one name are kept.
const MaxHistory = 100

// The actions of a change.
const (
	ActionCreated  = "created"
	ActionUpdated  = "updated"
	ActionDeleted  = "deleted"
	ActionRestored = "restored" // an update (or re-create) back to a past version
)

// Change is one entry of a ruleset's history.
type Change struct {
	Time   time.Time `json:"time"`
	By     string    `json:"by"`     // the caller: a token's client name, or the local user
	Action string    `json:"action"` // created, updated or deleted
	// Fields are the fields the change set: of a create all three, of an
	// update those given, of a delete none.
	Fields []string `json:"fields"`
	// Version numbers a name's changes from 1, a deletion included (0:
	// recorded before the library kept versions).
	Version int `json:"version,omitempty"`
	// Restored is the version a restore brought back.
	Restored int `json:"restored,omitempty"`
	// State is the ruleset as the change left it: nil after a delete, and
	// for changes recorded before the library kept versions.
	State *Ruleset `json:"-"`
}

// createdFields are the fields of a create.
var createdFields = []string{"description", "markdown", "tags"}

// PatchChanges are the two changes an upsert of p may be, the store
// choosing by whether the name exists: a create, or an update of the
// fields p gives. A store narrows the update's Fields to those whose
// value it changes (ChangedFields), and records nothing when none is.
func PatchChanges(p Patch, now time.Time) (created, updated Change) {
	fields, _ := PatchFields(p)
	set, _ := PatchScope(p)
	scoped := []string{}
	for i, f := range ScopeFields {
		if set[i] {
			scoped = append(scoped, f)
		}
	}
	created = Change{Time: now, By: p.By, Action: ActionCreated, Fields: append(slices.Clone(createdFields), scoped...)}
	updated = Change{Time: now, By: p.By, Action: ActionUpdated, Fields: fields}
	if p.Restored > 0 {
		created.Action, created.Restored = ActionRestored, p.Restored
		updated.Action, updated.Restored = ActionRestored, p.Restored
	}
	return created, updated
}

// PatchFields are the stored fields p sets, in the order a change lists
// them, and the stored value of each ("" removes a scope field).
func PatchFields(p Patch) (names, values []string) {
	names, values = []string{}, []string{}
	if p.Description != nil {
		names, values = append(names, "description"), append(values, *p.Description)
	}
	if p.Markdown != nil {
		names, values = append(names, "markdown"), append(values, *p.Markdown)
	}
	if p.SetTags {
		names, values = append(names, "tags"), append(values, EncodeTags(p.Tags))
	}
	set, vals := PatchScope(p)
	for i, f := range ScopeFields {
		if set[i] {
			names, values = append(names, f), append(values, vals[i])
		}
	}
	return names, values
}

// ChangedFields are the fields an update of cur by p gives another value:
// what its change records. None means the update changes nothing, and a
// store then writes nothing, last_modified and history included.
func ChangedFields(cur Ruleset, p Patch) []string {
	was := StoredFields(cur)
	names, values := PatchFields(p)
	changed := []string{}
	for i, f := range names {
		if was[f] != values[i] {
			changed = append(changed, f)
		}
	}
	return changed
}

// CreateChange is the change a Create makes.
func CreateChange(r Ruleset, by string) Change {
	fields := slices.Clone(createdFields)
	for i, v := range EncodeScope(r.Scope) {
		if v != "" {
			fields = append(fields, ScopeFields[i])
		}
	}
	return Change{Time: r.CreatedAt, By: by, Action: ActionCreated, Fields: fields}
}

// DeleteChange is the change a Delete makes.
func DeleteChange(by string, now time.Time) Change {
	return Change{Time: now, By: by, Action: ActionDeleted, Fields: []string{}}
}

// changeRecord is a change as the stores keep it: the time in the
// storage form.
type changeRecord struct {
	Time     string            `json:"time"`
	By       string            `json:"by"`
	Action   string            `json:"action"`
	Fields   []string          `json:"fields"`
	Restored int               `json:"restored,omitempty"`
	Version  int               `json:"version,omitempty"`
	State    map[string]string `json:"state,omitempty"` // the stored fields, as the Valkey hash holds them
}

// EncodeChange is the stored form of a change, a JSON object, without its
// version and state: the stores add those as they record it (a Valkey
// script appends them to this text, so they come last).
func EncodeChange(c Change) string {
	b, _ := json.Marshal(changeRecord{Time: Timestamp(c.Time), By: c.By, Action: c.Action, Fields: c.Fields, Restored: c.Restored})
	return string(b)
}

// EncodeVersioned is the stored form of a change with its version and the
// ruleset's state after it (nil after a delete).
func EncodeVersioned(c Change, version int, state *Ruleset) string {
	rec := changeRecord{Time: Timestamp(c.Time), By: c.By, Action: c.Action, Fields: c.Fields, Restored: c.Restored, Version: version}
	if state != nil {
		rec.State = StoredFields(*state)
	}
	b, _ := json.Marshal(rec)
	return string(b)
}

// VersionOf is the version of a stored change, 0 when it has none.
func VersionOf(s string) int {
	var rec struct {
		Version int `json:"version"`
	}
	json.Unmarshal([]byte(s), &rec)
	return rec.Version
}

// DecodeChange reads the stored form of one of name's changes.
func DecodeChange(name, s string) (Change, error) {
	var rec changeRecord
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return Change{}, corrupt(name, err)
	}
	t, err := ParseTimestamp(rec.Time)
	if err != nil {
		return Change{}, corrupt(name, err)
	}
	if rec.Fields == nil {
		rec.Fields = []string{}
	}
	c := Change{Time: t, By: rec.By, Action: rec.Action, Fields: rec.Fields, Version: rec.Version, Restored: rec.Restored}
	if rec.State != nil {
		f := rec.State
		r := Ruleset{Name: name, Description: f["description"], Markdown: f["markdown"]}
		err := Record{Tags: f["tags"], CreatedAt: f["created_at"], LastModified: f["last_modified"],
			Globs: f["globs"], Always: f["always"], Targets: f["targets"]}.DecodeRuleset(&r)
		if err != nil {
			return Change{}, err
		}
		c.State = &r
	}
	return c, nil
}

// History returns name's changes, newest first, at most limit (1 to
// MaxHistory; anything else is MaxHistory). A name with no history that is
// not a ruleset either is the NotFound of Get, with the existing names.
func (l Library) History(ctx context.Context, name string, limit int) ([]Change, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if limit < 1 || limit > MaxHistory {
		limit = MaxHistory
	}
	changes, err := l.Store.History(ctx, name, limit)
	if err != nil || len(changes) > 0 {
		return changes, err
	}
	if _, err := l.Store.Get(ctx, name); err != nil {
		return nil, l.notFound(ctx, name, err)
	}
	return changes, nil
}
