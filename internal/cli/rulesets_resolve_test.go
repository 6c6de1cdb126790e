package cli_test

import "testing"

// TestRulesetsResolve: the CLI prints resolve_rules' text.
func TestRulesetsResolve(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.ok("", "put", "api_rules", "-d", "API", "-f", writeFile(t, "problem+json"), "--glob", "pkg/api/**")
	l.ok("", "put", "team", "-d", "Team", "-f", writeFile(t, "Be kind."), "--always", "--targets", "claude")
	l.ok("2 ruleset(s) apply to pkg/api/h.go for claude, in order (about 5 tokens):\n\n"+
		"=== 1. team (always; about 2 tokens): Team ===\nBe kind.\n\n"+
		"=== 2. api_rules (glob pkg/api/** matches pkg/api/h.go; about 3 tokens): API ===\nproblem+json\n", "resolve", "pkg/api/h.go", "--agent", "claude")
	l.ok("No rulesets apply to web/x.ts for codex\n", "resolve", "web/x.ts", "--agent", "codex")
}
