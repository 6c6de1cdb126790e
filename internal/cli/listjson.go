package cli

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/tracker"
)

// A list of every issue is tens of megabytes of JSON at 100,000 issues:
// encoding/json's indented encoder walks it through reflection, then
// re-indents the whole buffer, which cost more than reading the list. The
// lists of compact items are written here instead, streamed, as the same
// bytes writeJSON makes of them (pinned by the tests against it).

// compactList is the JSON of a list of compact items: {key: items, total,
// truncated, hint, next_cursor}, the fields of tracker.IssueList and
// tracker.SpecList in their order.
type compactList struct {
	key       string
	items     []tracker.Compact
	total     int
	truncated bool
	hint      *string
	next      *string
}

// listOf is v's compactList when v is a list of compact items.
func listOf(v any) (compactList, bool) {
	switch l := v.(type) {
	case tracker.IssueList:
		return compactList{"issues", l.Issues, l.Total, l.Truncated, l.Hint, l.NextCursor}, true
	case tracker.SpecList:
		return compactList{"specs", l.Specs, l.Total, l.Truncated, l.Hint, l.NextCursor}, true
	}
	return compactList{}, false
}

// flushAt is the size of the pieces the list is written in.
const flushAt = 64 << 10

// write writes l as writeJSON's encoder would.
func (l compactList) write(w io.Writer) error {
	b := make([]byte, 0, flushAt+4<<10)
	b = append(b, "{\n  "...)
	b = appendJSONString(b, l.key)
	switch {
	case l.items == nil:
		b = append(b, ": null,\n"...)
	case len(l.items) == 0:
		b = append(b, ": [],\n"...)
	default:
		var err error
		if b, err = appendItems(w, b, l.items, appendCompact); err != nil {
			return err
		}
	}
	b = append(b, `  "total": `...)
	b = strconv.AppendInt(b, int64(l.total), 10)
	b = append(b, ",\n  \"truncated\": "...)
	b = strconv.AppendBool(b, l.truncated)
	b = append(b, ",\n  \"hint\": "...)
	b = appendJSONStringPtr(b, l.hint)
	b = append(b, ",\n  \"next_cursor\": "...)
	b = appendJSONStringPtr(b, l.next)
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendItems appends ": [", items (each by elem, one to a line) and
// "],", as a field of the result's object holds its array, writing b to w
// whenever it holds flushAt bytes; it returns what is left to write.
func appendItems[T any](w io.Writer, b []byte, items []T, elem func([]byte, T) []byte) ([]byte, error) {
	b = append(b, ": [\n"...)
	for i, it := range items {
		b = elem(b, it)
		if i < len(items)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		if len(b) >= flushAt {
			if _, err := w.Write(b); err != nil {
				return nil, err
			}
			b = b[:0]
		}
	}
	return append(b, "  ],\n"...), nil
}

// appendCompact appends c as an element of the list's array.
func appendCompact(b []byte, c tracker.Compact) []byte {
	b = append(b, "    {\n"...)
	b = appendCompactFields(b, c)
	return append(b, "\n    }"...)
}

// appendCompactFields appends c's fields as an element of a top-level
// array holds them, without the braces.
func appendCompactFields(b []byte, c tracker.Compact) []byte {
	b = append(b, "      \"id\": "...)
	b = appendJSONString(b, c.ID)
	b = append(b, ",\n      \"title\": "...)
	b = appendJSONString(b, c.Title)
	b = append(b, ",\n      \"status\": "...)
	b = appendJSONString(b, c.Status)
	b = append(b, ",\n      \"priority\": "...)
	b = strconv.AppendInt(b, int64(c.Priority), 10)
	b = append(b, ",\n      \"type\": "...)
	b = appendJSONString(b, c.Type)
	b = append(b, ",\n      \"description\": "...)
	return appendJSONString(b, c.Description)
}

func appendJSONStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

// appendJSONString appends s quoted as encoding/json does without HTML
// escaping: \" \\ \b \f \n \r \t, other control bytes as \u00XX, each
// invalid UTF-8 byte as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
