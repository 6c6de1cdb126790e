package workspace

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	in := map[string]any{
		"api_key": "plain", "GITHUB_TOKEN": "x", "password": "p", "note": "hello",
		"nested": map[string]any{"client_secret": "s", "ok": "fine"},
		"values": []any{"ghp_abcdefghijklmnopqrstuvwxyz", "sk-abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP", "-----BEGIN RSA PRIVATE KEY-----\nx", "sk-short"},
		"long":   strings.Repeat("a", 300),
	}
	out := Redact(in).(map[string]any)
	for _, k := range []string{"api_key", "GITHUB_TOKEN", "password"} {
		if out[k] != "[REDACTED]" {
			t.Errorf("%s = %v", k, out[k])
		}
	}
	if out["note"] != "hello" || out["nested"].(map[string]any)["client_secret"] != "[REDACTED]" || out["nested"].(map[string]any)["ok"] != "fine" {
		t.Errorf("out = %v", out)
	}
	vals := out["values"].([]any)
	for i := 0; i < 4; i++ {
		if vals[i] != "[REDACTED]" {
			t.Errorf("value %d = %v", i, vals[i])
		}
	}
	if vals[4] != "sk-short" {
		t.Errorf("a short sk- word is not a key: %v", vals[4])
	}
	if l := out["long"].(string); len([]rune(l)) != 241 {
		t.Errorf("long string cut to %d runes", len([]rune(l)))
	}
	many := make([]any, 80)
	if n := len(Redact(many).([]any)); n != 50 {
		t.Errorf("list capped at %d", n)
	}
}
