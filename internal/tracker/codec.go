package tracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	fastjson "github.com/segmentio/encoding/json"
	"slices"
	"strings"
)

// The tracked files, one record per line.
const (
	IssuesFile   = "issues.jsonl"
	SpecsFile    = "specs.jsonl"
	FeedbackFile = "feedback.jsonl"
)

// LineError is a line of a JSONL file that is not a record of its kind.
type LineError struct {
	File string // e.g. "issues.jsonl"
	Line int    // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// codec describes one file kind to the generic parse and encode.
type codec[T any] struct {
	file      string
	id        func(*T) string
	uuid      func(*T) string // nil: the kind has no uuid (feedback)
	canonical func(T) T
}

var (
	issueCodec = codec[IssueRecord]{IssuesFile,
		func(r *IssueRecord) string { return r.ID }, func(r *IssueRecord) string { return r.UUID }, IssueRecord.Canonical}
	specCodec = codec[SpecRecord]{SpecsFile,
		func(r *SpecRecord) string { return r.ID }, func(r *SpecRecord) string { return r.UUID }, SpecRecord.Canonical}
	feedbackCodec = codec[Feedback]{FeedbackFile,
		func(f *Feedback) string { return f.ID }, nil, Feedback.Canonical}
)

// ParseIssues reads issues.jsonl: one JSON object per line, blank lines
// (and a leading byte order mark) skipped. A line that is not one object of
// the kind, has an unknown key, lacks its id or uuid, repeats an id or a
// uuid, or fails check (when not nil) is a *LineError, and nothing is
// returned: rewriting such a file would lose data. Records come as read,
// not canonical.
func ParseIssues(data []byte, check func(*IssueRecord) error) ([]IssueRecord, error) {
	return parse(issueCodec, data, check)
}

// ParseSpecs reads specs.jsonl, as ParseIssues.
func ParseSpecs(data []byte, check func(*SpecRecord) error) ([]SpecRecord, error) {
	return parse(specCodec, data, check)
}

// ParseFeedback reads feedback.jsonl, as ParseIssues; feedback has no uuid.
func ParseFeedback(data []byte, check func(*Feedback) error) ([]Feedback, error) {
	return parse(feedbackCodec, data, check)
}

// EncodeIssues writes records as issues.jsonl holds them: each record
// canonical (see IssueRecord.Canonical) on one line with its keys in the
// order of the struct fields and no HTML escaping, lines sorted by id (then
// uuid, then content, so the bytes never depend on the input order), a
// final newline; no records, an empty file. recs is not modified. It fails
// only on a timestamp outside the years 0–9999, which JSON cannot hold.
func EncodeIssues(recs []IssueRecord) ([]byte, error) { return encode(issueCodec, recs) }

// EncodeSpecs writes specs.jsonl, as EncodeIssues.
func EncodeSpecs(recs []SpecRecord) ([]byte, error) { return encode(specCodec, recs) }

// EncodeFeedback writes feedback.jsonl, as EncodeIssues.
func EncodeFeedback(recs []Feedback) ([]byte, error) { return encode(feedbackCodec, recs) }

// MarshalLine encodes v as one JSONL line (with its newline), without HTML
// escaping, so that files read naturally in diffs. v must be canonical
// already for the line to be the file's.
func MarshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var bom = []byte("\xef\xbb\xbf")

func parse[T any](c codec[T], data []byte, check func(*T) error) ([]T, error) {
	data = bytes.TrimPrefix(data, bom)
	var out []T
	idLine := map[string]int{}
	uuidLine := map[string]int{}
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r, err := decodeRecord(c, line, check)
		if err == nil {
			err = unique(idLine, "id", c.id(&r), i+1)
		}
		if err == nil && c.uuid != nil {
			err = unique(uuidLine, "uuid", c.uuid(&r), i+1)
		}
		if err != nil {
			return nil, &LineError{File: c.file, Line: i + 1, Err: err}
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeRecord reads one line: exactly one JSON object with only the
// kind's keys, an id (and a uuid where the kind has one), passing check.
func decodeRecord[T any](c codec[T], line []byte, check func(*T) error) (T, error) {
	var r T
	if line[0] != '{' {
		return r, errors.New("not a JSON object")
	}
	rest, err := fastjson.Parse(line, &r, fastjson.DisallowUnknownFields)
	if err != nil {
		return r, err
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return r, errors.New("unexpected data after the JSON object")
	}
	if c.id(&r) == "" {
		return r, errors.New(`missing "id"`)
	}
	if c.uuid != nil && c.uuid(&r) == "" {
		return r, errors.New(`missing "uuid"`)
	}
	if check != nil {
		if err := check(&r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// unique records that key is on line n, or says where it was already.
func unique(seen map[string]int, what, key string, n int) error {
	if p, ok := seen[key]; ok {
		return fmt.Errorf("duplicate %s %q (also on line %d)", what, key, p)
	}
	seen[key] = n
	return nil
}

func encode[T any](c codec[T], recs []T) ([]byte, error) {
	type line struct {
		id, uuid string
		b        []byte
	}
	lines := make([]line, len(recs))
	for i := range recs {
		r := c.canonical(recs[i])
		b, err := MarshalLine(&r)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding %q: %w", c.file, c.id(&r), err)
		}
		lines[i] = line{id: c.id(&r), b: b}
		if c.uuid != nil {
			lines[i].uuid = c.uuid(&r)
		}
	}
	slices.SortFunc(lines, func(a, b line) int {
		if d := strings.Compare(a.id, b.id); d != 0 {
			return d
		}
		if d := strings.Compare(a.uuid, b.uuid); d != 0 {
			return d
		}
		return bytes.Compare(a.b, b.b)
	})
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(l.b)
	}
	return out.Bytes(), nil
}
