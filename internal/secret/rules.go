package secret

import (
	"regexp"
	"strings"
)

// rule finds one format of secret. The secret is the regexp's group (0:
// the whole match); value, when set, decides from the whole match whether
// and which span is a secret (start < 0: none).
type rule struct {
	triggers []string // lower-case words one of which s must contain
	re       *regexp.Regexp
	group    int
	value    func(s string, m []int) (start, end int)
}

// rules are the formats known. Token formats follow the providers'
// documented prefixes; the contextual rules (headers, URLs, flags,
// assignments) mask only the credential and keep the words around it.
var rules = []rule{
	// Private keys: PEM and OpenSSH, RSA/EC/DSA/PGP …, to the END line or
	// the end of the text.
	{triggers: []string{"-----begin"}, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
	// GitHub: classic, OAuth, user-to-server, server-to-server and
	// refresh tokens, and fine-grained personal access tokens.
	{triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{22,})`)},
	// GitLab personal, deploy, runner, trigger and OAuth tokens.
	{triggers: []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-", "glsoat-"}, re: regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|oas|soat)-[A-Za-z0-9_-]{20,}`)},
	// Slack tokens and incoming webhooks (the path is the secret).
	{triggers: []string{"xox", "xapp-"}, re: regexp.MustCompile(`\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})`)},
	{triggers: []string{"hooks.slack.com"}, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_-]{20,})`), group: 1},
	// Stripe secret and restricted keys (publishable pk_ keys are public).
	{triggers: []string{"k_live_", "k_test_"}, re: regexp.MustCompile(`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`)},
	// Google API keys.
	{triggers: []string{"aiza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	// AWS access key ids (long-term and session).
	{triggers: []string{"akia", "asia", "abia", "acca"}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`)},
	// JWTs: a JSON header and payload, base64url, and a signature.
	{triggers: []string{"eyj"}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	// npm and PyPI tokens.
	{triggers: []string{"npm_"}, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	{triggers: []string{"pypi-"}, re: regexp.MustCompile(`\bpypi-[A-Za-z0-9_-]{50,}`)},
	// sk- keys: Anthropic (sk-ant-…), OpenAI (sk-proj-…, sk-…) and the
	// many services that copied the form; at least 16 key characters.
	{triggers: []string{"sk-"}, re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
	// Authorization headers, whatever the scheme, and bearer tokens alone.
	{triggers: []string{"authorization"}, re: regexp.MustCompile(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|bot|negotiate)\s+)?([^\s"',;]{8,})`), group: 1},
	{triggers: []string{"bearer"}, re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1},
	// A password in a URL's user info (scheme://user:password@host).
	{triggers: []string{"://"}, re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@'"]+:([^/\s@'"]+)@`), group: 1},
	// Password flags: --password=X (and kin), mysql's -pX, sshpass -p X,
	// curl -u user:X.
	{triggers: []string{"--pass", "--token", "--secret", "--api-key", "--apikey", "--access-key", "--auth-token", "--client-secret"},
		re: regexp.MustCompile(`(?i)--(?:password|passwd|pass|token|secret|api-key|apikey|access-key|auth-token|client-secret)(?:=|\s+)(?:"([^"]*)"|'([^']*)'|(\S+))`), value: firstGroup},
	{triggers: []string{"mysql", "mariadb"}, re: regexp.MustCompile(`(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlslap|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?:"([^"]*)"|'([^']*)'|([^\s"'-]\S*))`), value: firstGroup},
	{triggers: []string{"sshpass"}, re: regexp.MustCompile(`(?i)\bsshpass\s+-p\s*(?:"([^"]*)"|'([^']*)'|(\S+))`), value: firstGroup},
	{triggers: []string{"curl"}, re: regexp.MustCompile(`(?i)\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*["']?[^\s:"']+:([^\s"']+)`), group: 1},
	// name=value and name: value with a secret-looking name, in code,
	// config files, .env files and JSON text.
	{triggers: []string{"token", "secret", "credential", "key", "passw", "private", "auth"},
		re: regexp.MustCompile(`([A-Za-z0-9_.-]+)["']?[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"',;&]+))`), value: assignment},
}

// firstGroup is the span of the first of groups 1-3 that matched (a
// double-quoted, single-quoted or bare value).
func firstGroup(_ string, m []int) (int, int) {
	for g := 1; g <= 3; g++ {
		if m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
	}
	return -1, -1
}

// assignment is the value of a name=value match whose name looks like a
// secret's, unless the value is one that holds none (empty, a number, a
// boolean or null).
func assignment(s string, m []int) (int, int) {
	if !Name(s[m[2]:m[3]]) {
		return -1, -1
	}
	start, end := -1, -1
	for g := 2; g <= 4; g++ {
		if m[2*g] >= 0 {
			start, end = m[2*g], m[2*g+1]
			break
		}
	}
	if start < 0 || plainValue(s[start:end]) {
		return -1, -1
	}
	return start, end
}

func plainValue(v string) bool {
	if v == "" || strings.Trim(v, "0123456789.") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil":
		return true
	}
	return false
}
