package mcpcoding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/workspace"
)

// callResult runs a tool and shapes its outcome as the profile's result:
// structuredContent with ok and warnings, its JSON as the text mirror, and
// isError exactly when ok is false. Whatever the tool returns — a result,
// a failure with one of the profile's codes, any other error, a panic, a
// result that cannot be encoded — the outcome is a tool result, never a
// JSON-RPC error. The structured content is encoded once, and the SDK
// sends those bytes as they are; they are also returned for the trace.
func callResult(ctx context.Context, t tool, args json.RawMessage) (*mcp.CallToolResult, []byte) {
	out, err := safeRun(ctx, t, args)
	text, items, encErr := structuredOf(out, err)
	if encErr != nil {
		text, items, _ = structuredOf(nil, workspace.Errorf(workspace.CodeInternal, nil,
			"internal error: the result of %s cannot be encoded: %v", t.Name, encErr))
	}
	return &mcp.CallToolResult{
		Content:           append(items, &mcp.TextContent{Text: string(text)}),
		StructuredContent: json.RawMessage(text),
		IsError:           err != nil || encErr != nil,
	}, text
}

// structuredOf is the structured result of a tool's outcome: the result's
// JSON with ok, warnings and the error object, the keys of its objects
// sorted (docs/coding-tools.md#results; the error object keeps the
// profile's order: code, message, category, retryable, details); and the
// content items that go before the mirror.
func structuredOf(out any, err error) ([]byte, []mcp.Content, error) {
	var we *toolError
	if err != nil {
		out = nil
		we = toolErrorOf(err)
		if f, ok := errors.AsType[*failure](err); ok {
			out = f.fields
			we.PermissionRequest = f.request
		}
	}
	var items []mcp.Content
	if c, ok := out.(contentful); ok && err == nil {
		items = c.contentItems()
	}
	raw := []byte("{}")
	if out != nil {
		b, encErr := marshalCompact(out)
		if encErr != nil {
			return nil, nil, encErr
		}
		if string(b) != "null" {
			raw = b
		}
	}
	if raw[0] != '{' {
		return nil, nil, fmt.Errorf("the result is not a JSON object: %.40s", raw)
	}
	members := objectMembers(raw)
	members = setMember(members, "ok", []byte(strconv.FormatBool(we == nil)))
	if we != nil {
		b, encErr := marshalCompact(we)
		if encErr != nil {
			return nil, nil, encErr
		}
		members = setMember(members, "error", b)
	}
	if i := memberIndex(members, "warnings"); i < 0 || string(members[i].value) == "null" {
		members = setMember(members, "warnings", []byte("[]"))
	}
	return writeObject(make([]byte, 0, len(raw)+64), members, "error"), items, nil
}

// The keys of a result's objects are written sorted, as a client reading
// the text mirror sees them. The result is encoded once (its Go types
// order their fields otherwise), and its objects' members reordered in
// the encoded bytes: strings, the bulk of a read_file, are copied, not
// decoded and encoded again.

// member is one member of an encoded object.
type member struct {
	key   string // unquoted
	raw   []byte // the key as encoded, quotes included
	value []byte
}

// objectMembers are the members of the compact JSON object b, in order.
func objectMembers(b []byte) []member {
	var ms []member
	for i := 1; i < len(b) && b[i] != '}'; {
		kend := skipString(b, i)
		vend := skipValue(b, kend+1)
		ms = append(ms, member{key: unquote(b[i:kend]), raw: b[i:kend], value: b[kend+1 : vend]})
		i = vend
		if b[i] == ',' {
			i++
		}
	}
	return ms
}

func memberIndex(ms []member, key string) int {
	return slices.IndexFunc(ms, func(m member) bool { return m.key == key })
}

// setMember sets key's value, adding the member when there is none.
func setMember(ms []member, key string, value []byte) []member {
	if i := memberIndex(ms, key); i >= 0 {
		ms[i].value = value
		return ms
	}
	return append(ms, member{key: key, raw: []byte(strconv.Quote(key)), value: value})
}

// writeObject appends the object of members to dst, sorted by key at
// every depth except inside the value of the member keep.
func writeObject(dst []byte, ms []member, keep string) []byte {
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, m.raw...), ':')
		if m.key == keep {
			dst = append(dst, m.value...)
		} else {
			dst = sortedValue(dst, m.value)
		}
	}
	return append(dst, '}')
}

// sortedValue appends the compact JSON value b to dst with its objects'
// keys sorted.
func sortedValue(dst, b []byte) []byte {
	switch b[0] {
	case '{':
		return writeObject(dst, objectMembers(b), "")
	case '[':
		dst = append(dst, '[')
		for i := 1; i < len(b) && b[i] != ']'; {
			end := skipValue(b, i)
			if i > 1 {
				dst = append(dst, ',')
			}
			dst = sortedValue(dst, b[i:end])
			i = end
			if b[i] == ',' {
				i++
			}
		}
		return append(dst, ']')
	}
	return append(dst, b...)
}

// skipValue is the end of the compact JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}

// skipString is the end of the JSON string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// unquote is the JSON string s (quotes included) as Go text.
func unquote(s []byte) string {
	if !bytes.ContainsRune(s, '\\') {
		return string(s[1 : len(s)-1])
	}
	var v string
	json.Unmarshal(s, &v)
	return v
}
