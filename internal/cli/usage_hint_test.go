package cli_test

import (
	"strings"
	"testing"
)

// Every mistake in a command line ends with the command's usage line as
// the hint, not only a wrong count of arguments.
func TestCommandLineMistakesGiveTheUsageLine(t *testing.T) {
	p := newProj(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"issue", "close"}, "hint: usage: sudocode issue close ID..."},
		{[]string{"search"}, "hint: usage: sudocode search WORDS..."},
		{[]string{"trust", "a", "b"}, "hint: usage: sudocode trust [DIR]"},
		{[]string{"issue", "list", "--bogus"}, "hint: usage: sudocode issue list"},
	}
	for _, c := range cases {
		r := p.run(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want+"\n") {
			t.Errorf("%q: exit %d: %s", c.args, r.code, r.stderr)
		}
	}
	r := p.run("issue", "close", "--json")
	if r.code != 2 || !strings.Contains(r.stderr, `"hint": "usage: sudocode issue close ID..."`) {
		t.Errorf("--json: exit %d: %s", r.code, r.stderr)
	}
}
