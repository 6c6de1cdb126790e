package secret

import (
	"strings"
	"testing"
)

// The coding tools' value rules (docs/coding-tools.md#child-environment) are all found; ordinary
// values of environment variables and arguments are not secrets.
func TestContains(t *testing.T) {
	for _, v := range []string{
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEow", "ghp_abcdefghijklmnop1234", "gho_abcdefghijklmnop1234", "ghu_abcdefghijklmnop1234",
		"ghs_abcdefghijklmnop1234", "ghr_abcdefghijklmnop1234", "sk-abcdefghijklmnop", "AKIAABCDEFGHIJKLMNOP",
		"postgres://u:hunter22@db/x", "--password=hunter22", "Bearer abcdefghijklmnop0123",
	} {
		if !Contains(v) {
			t.Errorf("Contains(%q) = false", v)
		}
	}
	for _, v := range []string{
		"", "x", "C.UTF-8", "/usr/local/bin:/usr/bin", "-count=1", "sk-short", "test", "max_tokens=1024", "token_count: 3",
		"https://example.com/a?b=c", "ssh://git@github.com/o/r.git", "author: Bob", "AKIA", "password: \"\"", "Bearer of bad news",
		"basic authentication is off", "the secret is out", "GIT_AUTHOR_NAME=Ann",
	} {
		if Contains(v) {
			t.Errorf("Contains(%q) = true: %q", v, Mask(v))
		}
	}
}

func TestName(t *testing.T) {
	for _, n := range []string{"API_KEY", "github_token", "Client-Secret", "DB_PASSWORD", "passwd", "aws_access_key_id", "npm_config__auth", "PRIVATE_KEY", "credentials"} {
		if !Name(n) {
			t.Errorf("Name(%q) = false", n)
		}
	}
	for _, n := range []string{"PATH", "GIT_AUTHOR_NAME", "AUTHOR", "keyboard", "monkey", "path", "title", "oauthor"} {
		if Name(n) {
			t.Errorf("Name(%q) = true", n)
		}
	}
}

func TestMaskKeepsTheRest(t *testing.T) {
	in := "a AKIAABCDEFGHIJKLMNOP b ghp_abcdefghijklmnop1234 c"
	if got, want := Mask(in), "a [REDACTED] b [REDACTED] c"; got != want {
		t.Errorf("Mask = %q, want %q", got, want)
	}
	if got := Mask("plain text"); got != "plain text" {
		t.Errorf("Mask(plain) = %q", got)
	}
}

// BenchmarkMask is the cost of searching the most text a log line keeps
// looking at (4 KiB of a patch full of assignments and URLs).
func BenchmarkMask(b *testing.B) {
	line := "+\tcfg := Config{Addr: \"https://api.example.com/v1\", Timeout: 5 * time.Second, token_count: n} // key: value\n"
	var patch strings.Builder
	for patch.Len() < 4096 {
		patch.WriteString(line)
	}
	s := patch.String()[:4096]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Mask(s)
	}
}
