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
	ActionCreated = "created"
	ActionUpdated = "updated"
	ActionDeleted = "deleted"
)

// Change is one entry of a ruleset's history.
type Change struct {
	Time   time.Time `json:"time"`
	By     string    `json:"by"`     // the caller: a token's client name, or the local user
	Action string    `json:"action"` // created, updated or deleted
	// Fields are the fields the change set: of a create all three, of an
	// update those given, of a delete none.
	Fields []string `json:"fields"`
}

// createdFields are the fields of a create.
var createdFields = []string{"description", "markdown", "tags"}

// PatchChanges are the two changes an upsert of p may be, the store
// choosing by whether the name exists: a create, or an update of the
// fields p gives.
func PatchChanges(p Patch, now time.Time) (created, updated Change) {
	fields := []string{}
	if p.Description != nil {
		fields = append(fields, "description")
	}
	if p.Markdown != nil {
		fields = append(fields, "markdown")
	}
	if p.SetTags {
		fields = append(fields, "tags")
	}
	set, _ := PatchScope(p)
	scoped := []string{}
	for i, f := range ScopeFields {
		if set[i] {
			scoped = append(scoped, f)
		}
	}
	fields = append(fields, scoped...)
	return Change{Time: now, By: p.By, Action: ActionCreated, Fields: append(slices.Clone(createdFields), scoped...)},
		Change{Time: now, By: p.By, Action: ActionUpdated, Fields: fields}
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
	Time   string   `json:"time"`
	By     string   `json:"by"`
	Action string   `json:"action"`
	Fields []string `json:"fields"`
}

// EncodeChange is the stored form of a change, a JSON object.
func EncodeChange(c Change) string {
	b, _ := json.Marshal(changeRecord{Time: Timestamp(c.Time), By: c.By, Action: c.Action, Fields: c.Fields})
	return string(b)
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
	return Change{Time: t, By: rec.By, Action: rec.Action, Fields: rec.Fields}, nil
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
