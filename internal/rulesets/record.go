package rulesets

import (
	"encoding/json"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
)

// Both stores keep a ruleset as strings: tags as a JSON array and times as
// RFC3339 UTC, the layout of the specification's Valkey hash.

// EncodeTags is the stored form of a tag list; nil is stored as "[]".
func EncodeTags(tags []string) string {
	if tags == nil {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// Record is the stored, string form of a ruleset's metadata. The scope's
// fields are empty when unset, so a ruleset without scope is stored
// exactly as the specification lays it out.
type Record struct {
	Tags, CreatedAt, LastModified string
	Globs, Always, Targets        string
}

// StoredFields is r as the Valkey hash holds it: the specification's five
// fields, and the scope's only when set.
func StoredFields(r Ruleset) map[string]string {
	m := map[string]string{"description": r.Description, "tags": EncodeTags(r.Tags), "markdown": r.Markdown,
		"created_at": Timestamp(r.CreatedAt), "last_modified": Timestamp(r.LastModified)}
	for i, v := range EncodeScope(r.Scope) {
		if v != "" {
			m[ScopeFields[i]] = v
		}
	}
	return m
}

// ScopeFields are the stored names of the scope's fields.
var ScopeFields = []string{"globs", "always", "targets"}

// EncodeScope is the stored form of each of ScopeFields, "" when unset.
func EncodeScope(s Scope) []string {
	list := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return EncodeTags(l)
	}
	always := ""
	if s.Always {
		always = "true"
	}
	return []string{list(s.Globs), always, list(s.Targets)}
}

// PatchScope is the stored form of the scope fields p sets: each of
// ScopeFields with whether p sets it and its value ("" clears it).
func PatchScope(p Patch) (set []bool, vals []string) {
	var s Scope
	if p.Always != nil {
		s.Always = *p.Always
	}
	s.Globs, s.Targets = p.Globs, p.Targets
	return []bool{p.SetGlobs, p.Always != nil, p.SetTargets}, EncodeScope(s)
}

// Decode parses a stored record into s, never leaving Tags nil.
func (rec Record) Decode(s *Summary) error {
	s.Tags = []string{}
	if rec.Tags != "" {
		if err := json.Unmarshal([]byte(rec.Tags), &s.Tags); err != nil {
			return corrupt(s.Name, err)
		}
	}
	var err error
	if s.CreatedAt, err = ParseTimestamp(rec.CreatedAt); err != nil {
		return corrupt(s.Name, err)
	}
	if s.LastModified, err = ParseTimestamp(rec.LastModified); err != nil {
		return corrupt(s.Name, err)
	}
	return nil
}

// DecodeRuleset parses a stored record into r.
func (rec Record) DecodeRuleset(r *Ruleset) error {
	s := Summary{Name: r.Name}
	if err := rec.Decode(&s); err != nil {
		return err
	}
	scope, err := rec.decodeScope()
	if err != nil {
		return corrupt(r.Name, err)
	}
	r.Tags, r.CreatedAt, r.LastModified, r.Scope = s.Tags, s.CreatedAt, s.LastModified, scope
	return nil
}

func (rec Record) decodeScope() (Scope, error) {
	var s Scope
	for _, f := range []struct {
		raw string
		to  *[]string
	}{{rec.Globs, &s.Globs}, {rec.Targets, &s.Targets}} {
		if f.raw == "" {
			continue
		}
		if err := json.Unmarshal([]byte(f.raw), f.to); err != nil {
			return s, err
		}
		if len(*f.to) == 0 {
			*f.to = nil
		}
	}
	s.Always = rec.Always == "true"
	return s, nil
}

func corrupt(name string, err error) error {
	return fault.Wrap(fault.Internal, err, "corrupt ruleset record '"+name+"'")
}

// Timestamp is the storage form of a time: RFC3339 in UTC, seconds.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ParseTimestamp reads the storage form of a time.
func ParseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err
}
