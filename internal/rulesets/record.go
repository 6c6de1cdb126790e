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

// Record is the stored, string form of a ruleset's metadata.
type Record struct {
	Tags, CreatedAt, LastModified string
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
	r.Tags, r.CreatedAt, r.LastModified = s.Tags, s.CreatedAt, s.LastModified
	return nil
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
