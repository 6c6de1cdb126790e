package cursor_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/fault"
)

type key struct {
	P  int    `json:"p"`
	C  int64  `json:"c"`
	ID string `json:"id"`
}

func TestRoundTrip(t *testing.T) {
	scope := cursor.For("issues", "open", nil, 2)
	want := key{P: 2, C: 1_761_733_800_123_456_789, ID: "sudocode-a1b2"} // beyond float64's exact integers
	c := cursor.Encode(scope, want)
	if strings.ContainsAny(c, "+/=") {
		t.Errorf("cursor %q is not unpadded base64url", c)
	}
	var got key
	if err := cursor.Decode(c, cursor.For("issues", "open", nil, 2), &got); err != nil || got != want {
		t.Fatalf("Decode = %+v, %v; want %+v", got, err, want)
	}
	// A padded copy (some clients pad base64) decodes too.
	if pad := (4 - len(c)%4) % 4; pad > 0 {
		if err := cursor.Decode(c+strings.Repeat("=", pad), scope, &got); err != nil {
			t.Errorf("padded cursor: %v", err)
		}
	}
}

func TestInvalid(t *testing.T) {
	scope := cursor.For("issues", "open")
	good := cursor.Encode(scope, key{ID: "x"})
	raw := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		name, cursor string
		scope        cursor.Scope
		want         string
	}{
		{"garbage", "not a cursor!", scope, "not a cursor this server made"},
		{"not JSON", raw("{"), scope, "not a cursor this server made"},
		{"unknown field", raw(`{"v":1,"l":"issues","k":{},"x":1}`), scope, "not a cursor this server made"},
		{"no key", raw(`{"v":1,"l":"issues"}`), scope, "not a cursor this server made"},
		{"version", raw(`{"v":2,"l":"issues","k":{}}`), scope, "version 2"},
		{"another list", good, cursor.For("specs", "open"), "another list (issues)"},
		{"other filters", good, cursor.For("issues", "closed"), "other filters"},
		{"no filters", good, cursor.For("issues"), "other filters"},
		{"malformed key", raw(`{"v":1,"l":"issues","f":"` + fingerprint(t, good) + `","k":{"p":"x"}}`), scope, "malformed position"},
		{"too long", strings.Repeat("A", cursor.MaxLen+1), scope, "too long"},
	} {
		var k key
		err := cursor.Decode(c.cursor, c.scope, &k)
		if !cursor.IsInvalid(err) || !fault.Is(err, fault.Invalid) || !strings.HasPrefix(err.Error(), "invalid cursor: ") ||
			!strings.Contains(err.Error(), c.want) || fault.HintOf(err) == "" {
			t.Errorf("%s: %v, want an invalid cursor error with %q and a hint", c.name, err, c.want)
		}
	}
}

func fingerprint(t *testing.T, c string) string {
	b, _ := base64.RawURLEncoding.DecodeString(c)
	s := string(b)
	i := strings.Index(s, `"f":"`)
	if i < 0 {
		t.Fatalf("no filters in %s", s)
	}
	s = s[i+5:]
	return s[:strings.IndexByte(s, '"')]
}
