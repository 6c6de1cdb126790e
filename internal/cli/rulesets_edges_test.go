package cli_test

import (
	"strings"
	"testing"
)

// On a terminal a list reads as text: names without markdown bold, tags
// as words, not Go's [a b].
func TestRulesetsListPlainOnATerminal(t *testing.T) {
	l := newLibrary(t)
	l.ok("", "put", pyName, "-d", pyDescription, "-t", "python,style", "-f", writeFile(t, pyMarkdown))
	l.ok("", "put", "bare", "-d", "No tags", "-f", writeFile(t, "Be brief.\n"))
	for _, args := range [][]string{{"list"}, {"search", "*"}} {
		out := onTerminal(t, l.env, append(append([]string{"rulesets"}, args...), "--store", l.store)...)
		for _, want := range []string{"- " + pyName + ": " + pyDescription, "Tags: python, style", "- bare: No tags", "Tags: none"} {
			if !strings.Contains(out, want) {
				t.Errorf("sudocode rulesets %s on a terminal lacks %q:\n%s", strings.Join(args, " "), want, out)
			}
		}
		if strings.Contains(out, "**") || strings.Contains(out, "[") {
			t.Errorf("sudocode rulesets %s on a terminal shows markup:\n%s", strings.Join(args, " "), out)
		}
	}
}

// A hint names what the shell's user can run, not an MCP tool.
func TestRulesetsHintsNameCommands(t *testing.T) {
	l := newLibrary(t)
	l.ok("", "put", pyName, "-d", pyDescription, "-f", writeFile(t, pyMarkdown))
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"get", "missing"}, "hint: run `sudocode rulesets list` to see the available names"},
		{[]string{"create", pyName, "-d", "again", "-f", writeFile(t, "x\n")}, "hint: use `sudocode rulesets put " + pyName + "` to change an existing ruleset"},
	} {
		r := l.run("", c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.hint) || strings.Contains(r.stderr, "_ruleset") {
			t.Errorf("sudocode rulesets %s: exit %d, stderr %q; want the hint %q", strings.Join(c.args, " "), r.code, r.stderr, c.hint)
		}
	}
}

// Editing the markdown records the markdown as changed, not every field
// the command passed on, and a put that changes nothing makes no version.
func TestRulesetsHistoryOfAnEdit(t *testing.T) {
	l := newLibrary(t)
	l.env = append(l.env, "SUDOCODE_ACTOR=alice")
	l.ok("", "put", "team_rules", "-d", "Team rules", "-t", "go,style", "-f", writeFile(t, "# Rules\n"))
	edit := writeFile(t, "# Rules\n\nSmall commits.\n")
	l.ok("", "put", "team_rules", "-d", "Team rules", "-t", "go,style", "-f", edit)
	l.ok("", "put", "team_rules", "-d", "Team rules", "-t", "go,style", "-f", edit)
	l.ok("2 change(s) of ruleset 'team_rules', newest first:\n"+
		"v2  TIME  alice  updated: markdown\n"+
		"v1  TIME  alice  created\n", "history", "team_rules")
}
