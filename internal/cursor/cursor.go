// Package cursor makes the opaque cursors of the paginated lists: the
// position after the last item a page returned, as the sort key of that
// item (keyset pagination, so that a cursor stays valid while items are
// added or removed), bound to the list and the filters it was made for.
//
// A cursor is unpadded base64url of the JSON
// {"v": version, "l": list, "f": filters, "k": key}: "l" names the list,
// "f" is a short hash of the filters (so a cursor cannot be replayed on a
// different query), and "k" is the list's sort key. Clients must treat it
// as opaque; only its list of origin decodes it.
package cursor

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// Version is the cursor format's version; a cursor of another version is
// invalid.
const Version = 1

// MaxLen bounds a cursor's length: no list's key comes near it.
const MaxLen = 4096

// ErrInvalid is in the chain of every error Decode returns: transports map
// it to their invalid-params error (-32602 in JSON-RPC).
var ErrInvalid = errors.New("invalid cursor")

// Hint is what a caller with an invalid cursor should do.
const Hint = "pass the next cursor of the previous page unchanged, with the same filters; leave the cursor out to start from the beginning"

type envelope struct {
	V int             `json:"v"`
	L string          `json:"l"`
	F string          `json:"f,omitempty"`
	K json.RawMessage `json:"k"`
}

// Scope names a list and the filters of one query of it.
type Scope struct {
	List    string
	Filters []any // the query's filters, in a fixed order; the limit is not one
}

// For returns the scope of list under filters.
func For(list string, filters ...any) Scope { return Scope{List: list, Filters: filters} }

func (s Scope) fingerprint() string {
	if len(s.Filters) == 0 {
		return ""
	}
	b, _ := json.Marshal(s.Filters)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// Encode returns the cursor for the position after key in scope's list.
func Encode(s Scope, key any) string {
	k, err := json.Marshal(key)
	if err != nil {
		panic(fmt.Sprintf("cursor key %T: %v", key, err))
	}
	b, _ := json.Marshal(envelope{V: Version, L: s.List, F: s.fingerprint(), K: k})
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode reads a cursor made by Encode for the same scope into key (a
// pointer). Every failure is a fault.Invalid error that wraps ErrInvalid.
func Decode(c string, s Scope, key any) error {
	if len(c) > MaxLen {
		return invalid("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(c, "="))
	if err != nil {
		return invalid("not a cursor this server made")
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || len(env.K) == 0 {
		return invalid("not a cursor this server made")
	}
	switch {
	case env.V != Version:
		return invalid(fmt.Sprintf("version %d, this server makes version %d", env.V, Version))
	case env.L != s.List:
		return invalid(fmt.Sprintf("it belongs to another list (%s), not %s", env.L, s.List))
	case env.F != s.fingerprint():
		return invalid("it was made for other filters; repeat the query's filters with its cursor")
	}
	kd := json.NewDecoder(bytes.NewReader(env.K))
	kd.DisallowUnknownFields()
	if err := kd.Decode(key); err != nil {
		return invalid("malformed position")
	}
	return nil
}

// Invalid returns the error of a cursor that decodes but names no valid
// position, with reason.
func Invalid(reason string) error { return invalid(reason) }

func invalid(reason string) error {
	return &fault.Error{Code: fault.Invalid, Msg: "invalid cursor: " + reason, Hint: Hint, Err: ErrInvalid}
}

// IsInvalid reports whether err is an invalid cursor.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }
