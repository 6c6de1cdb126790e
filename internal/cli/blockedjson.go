package cli

import (
	"io"

	"github.com/sudocode/sudocode/internal/tracker"
)

// writeBlocked writes res as writeJSON's encoder would, streamed, as
// compactList does for the lists: the whole blocked list is megabytes of
// JSON, each row with what it waits for, and encoding/json's indented
// encoder cost as much as reading it.
func writeBlocked(w io.Writer, res tracker.BlockedResult) error {
	b := make([]byte, 0, flushAt+4<<10)
	b = append(b, "{\n"...)
	for _, l := range []struct {
		key   string
		items *[]tracker.BlockedItem
	}{{"issues", res.Issues}, {"specs", res.Specs}} {
		if l.items == nil {
			continue // omitted, as its omitempty says
		}
		b = append(b, "  "...)
		b = appendJSONString(b, l.key)
		if len(*l.items) == 0 {
			b = append(b, ": [],\n"...)
			continue
		}
		var err error
		if b, err = appendItems(w, b, *l.items, appendBlockedItem); err != nil {
			return err
		}
	}
	b = append(b, "  \"next_cursor\": "...)
	b = appendJSONStringPtr(b, res.NextCursor)
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendBlockedItem appends it as an element of its list's array.
func appendBlockedItem(b []byte, it tracker.BlockedItem) []byte {
	b = append(b, "    {\n"...)
	b = appendCompactFields(b, it.Compact)
	b = append(b, ",\n      \"blocked_by\": "...)
	switch {
	case it.BlockedBy == nil:
		b = append(b, "null"...)
	case len(it.BlockedBy) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, "[\n"...)
		for i, by := range it.BlockedBy {
			b = append(b, "        {\n          \"id\": "...)
			b = appendJSONString(b, by.ID)
			b = append(b, ",\n          \"title\": "...)
			b = appendJSONString(b, by.Title)
			b = append(b, ",\n          \"status\": "...)
			b = appendJSONString(b, by.Status)
			b = append(b, ",\n          \"type\": "...)
			b = appendJSONString(b, by.Type)
			b = append(b, ",\n          \"via\": "...)
			b = appendJSONStringPtr(b, by.Via)
			b = append(b, "\n        }"...)
			if i < len(it.BlockedBy)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, "      ]"...)
	}
	return append(b, "\n    }"...)
}
