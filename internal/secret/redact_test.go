package secret

import (
	"strings"
	"testing"
)

// TestRedact: secret-named keys and secrets in strings are replaced, at any
// depth; ordinary values stay; long strings and lists are cut.
func TestRedact(t *testing.T) {
	in := map[string]any{
		"api_key": "plain", "GITHUB_TOKEN": "x", "password": "p", "note": "hello",
		"nested": map[string]any{"client_secret": "s", "ok": "fine"},
		"values": []any{"ghp_abcdefghijklmnopqrstuvwxyz", "sk-abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP", "-----BEGIN RSA PRIVATE KEY-----\nx", "sk-short"},
		"long":   strings.Repeat("a", 300),
		"count":  float64(3),
	}
	out := Redact(in).(map[string]any)
	for _, k := range []string{"api_key", "GITHUB_TOKEN", "password"} {
		if out[k] != Redacted {
			t.Errorf("%s = %v", k, out[k])
		}
	}
	if out["note"] != "hello" || out["count"] != float64(3) || out["nested"].(map[string]any)["client_secret"] != Redacted || out["nested"].(map[string]any)["ok"] != "fine" {
		t.Errorf("out = %v", out)
	}
	vals := out["values"].([]any)
	for i := range 4 {
		if vals[i] != Redacted {
			t.Errorf("value %d = %v", i, vals[i])
		}
	}
	if vals[4] != "sk-short" {
		t.Errorf("a short sk- word is not a key: %v", vals[4])
	}
	if l := out["long"].(string); len([]rune(l)) != keepRunes+1 || !strings.HasSuffix(l, "…") {
		t.Errorf("long string cut to %d runes", len([]rune(l)))
	}
	if n := len(Redact(make([]any, 80)).([]any)); n != keepItems {
		t.Errorf("list capped at %d", n)
	}
}
