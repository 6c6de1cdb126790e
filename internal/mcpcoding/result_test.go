package mcpcoding

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestStructuredKeysSorted: the result encoded once, its members
// reordered in place, is byte for byte what decoding it and encoding it
// again (keys sorted, numbers exact, no HTML escaping) gives, whatever its
// strings hold.
func TestStructuredKeysSorted(t *testing.T) {
	type inner struct {
		Zeta  string         `json:"zeta"`
		Alpha []any          `json:"alpha"`
		Map   map[string]any `json:"map"`
	}
	type out struct {
		Path     string   `json:"path"`
		Content  string   `json:"content"`
		Inner    *inner   `json:"inner"`
		List     []inner  `json:"list"`
		Big      float64  `json:"big"`
		Warnings []string `json:"warnings"`
		Empty    struct{} `json:"empty"`
		Null     *int     `json:"null"`
	}
	v := out{
		Path:    `a "quoted" \ path`,
		Content: "<b>&{\"}\n]\t,\u2028é",
		Inner:   &inner{Zeta: "}", Alpha: []any{1, "x", map[string]any{"b": 1, "a": []any{}}}, Map: map[string]any{"k\"ey": 1, "a<b": "v"}},
		List:    []inner{{Zeta: "[", Map: map[string]any{}}, {}},
		Big:     1e21,
	}
	got, _, err := structuredOf(&v, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := marshalCompact(&v)
	dec := json.NewDecoder(bytes.NewReader(first))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	m["ok"], m["warnings"] = true, []any{}
	want, _ := marshalCompact(m)
	if !bytes.Equal(got, want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
