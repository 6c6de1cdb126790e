package cli_test

import (
	"strings"
	"testing"
)

// TestRulesetsVersions: get --version prints a past version, diff shows
// what changed, restore brings a version back as a new change by its
// author.
func TestRulesetsVersions(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	env := l.env
	l.env = append(env, "SUDOCODE_ACTOR=alice")
	l.ok("", "put", "team_rules", "-d", "Team rules", "-f", writeFile(t, "Be kind.\nBe brief."))
	l.ok("", "put", "team_rules", "-f", writeFile(t, "Be kind.\nBe very brief."))
	l.ok("---\nname: team_rules\nversion: 1\ndescription: Team rules\ntags: []\ncreated_at: TIME\nlast_modified: TIME\n---\n\nBe kind.\nBe brief.\n",
		"get", "team_rules", "--version", "1")
	if d := l.ok("", "diff", "team_rules", "1", "2"); !strings.HasPrefix(d, "--- team_rules version 1 (created by alice, ") ||
		!strings.HasSuffix(d, "\n Be kind.\n-Be brief.\n+Be very brief.\n") {
		t.Errorf("diff 1 2:\n%s", d)
	}
	l.env = append(env, "SUDOCODE_ACTOR=bob")
	l.ok("Successfully restored ruleset 'team_rules' to version 1\n", "restore", "team_rules", "1")
	if got := l.ok("", "get", "team_rules"); !strings.HasSuffix(got, "\n\nBe kind.\nBe brief.\n") {
		t.Errorf("after the restore: %s", got)
	}
	l.ok("1 change(s) of ruleset 'team_rules', newest first:\nv3  TIME  bob  restored version 1\n", "history", "team_rules", "-n", "1")
	l.fail(3, "version 9 of ruleset 'team_rules' not found", "restore", "team_rules", "9")
	l.fail(2, `invalid version "x": a version number of 1 or more, from sudocode rulesets history`, "diff", "team_rules", "x")
}
