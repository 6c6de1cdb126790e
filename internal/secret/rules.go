package secret

import (
	"regexp"
	"sync"
)

// rule finds one format of secret: either re, whose group is the secret
// (0: the whole match; anyGroup: the first of groups 1-3 that matched, a
// double-quoted, single-quoted or bare value), or find, a scanner that
// appends the secrets' spans to out.
type rule struct {
	triggers []string // lower-case words one of which s must contain
	re       *regexp.Regexp
	group    int
	word     bool // the match must not continue a word (a \b that keeps re's literal prefix fast)
	find     func(s string, out []span) []span
}

const anyGroup = -1

// rules are the formats known. Token formats follow the providers'
// documented prefixes, written as literal prefixes so that the regexp
// engine skips to them; the contextual rules (headers, URLs, flags,
// assignments) mask only the credential and keep the words around it.
// They are compiled on first use: every command of the binary would
// otherwise pay for them at start.
var rules = sync.OnceValue(ruleList)

func ruleList() []rule {
	return []rule{
		// Private keys: PEM and OpenSSH, RSA/EC/DSA/PGP …, to the END line or
		// the end of the text.
		{triggers: []string{"-----begin"}, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)},
		// GitHub: classic, OAuth, user-to-server, server-to-server and
		// refresh tokens, and fine-grained personal access tokens.
		{triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{16,}`), word: true},
		{triggers: []string{"github_pat_"}, re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,}`), word: true},
		// GitLab personal, deploy, runner, trigger and OAuth tokens.
		{triggers: []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-", "glsoat-"}, re: regexp.MustCompile(`gl(?:pat|dt|rt|ptt|oas|soat)-[A-Za-z0-9_-]{20,}`), word: true},
		// Slack tokens and incoming webhooks (the path is the secret).
		{triggers: []string{"xox"}, re: regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`), word: true},
		{triggers: []string{"xapp-"}, re: regexp.MustCompile(`xapp-\d-[A-Za-z0-9-]{10,}`), word: true},
		{triggers: []string{"hooks.slack.com"}, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_-]{20,})`), group: 1},
		// Stripe secret and restricted keys (publishable pk_ keys are public).
		{triggers: []string{"k_live_", "k_test_"}, re: regexp.MustCompile(`[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`), word: true},
		// Google API keys.
		{triggers: []string{"aiza"}, re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), word: true},
		// AWS access key ids (long-term and session).
		{triggers: []string{"akia", "asia", "abia", "acca"}, re: regexp.MustCompile(`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), word: true},
		// JWTs: a JSON header and payload, base64url, and a signature.
		{triggers: []string{"eyj"}, re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), word: true},
		// npm and PyPI tokens.
		{triggers: []string{"npm_"}, re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}\b`), word: true},
		{triggers: []string{"pypi-"}, re: regexp.MustCompile(`pypi-[A-Za-z0-9_-]{50,}`), word: true},
		// sk- keys: Anthropic (sk-ant-…), OpenAI (sk-proj-…, sk-…) and the
		// many services that copied the form; at least 16 key characters.
		{triggers: []string{"sk-"}, re: regexp.MustCompile(`sk-[A-Za-z0-9_-]{16,}`), word: true},
		// Authorization headers, whatever the scheme, and bearer tokens alone.
		{triggers: []string{"authorization"}, re: regexp.MustCompile(`(?i)authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|bot|negotiate)\s+)?([^\s"',;]{8,})`), group: 1, word: true},
		{triggers: []string{"bearer"}, re: regexp.MustCompile(`(?i)bearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1, word: true},
		// A password in a URL's user info (scheme://user:password@host).
		{triggers: []string{"://"}, find: urlPasswords},
		// Password flags: --password=X (and kin), mysql's -pX, sshpass -p X,
		// curl -u user:X.
		{triggers: []string{"--pass", "--token", "--secret", "--api-key", "--apikey", "--access-key", "--auth-token", "--client-secret"},
			re: regexp.MustCompile(`(?i)--(?:password|passwd|pass|token|secret|api-key|apikey|access-key|auth-token|client-secret)(?:=|\s+)(?:"([^"]*)"|'([^']*)'|(\S+))`), group: anyGroup},
		{triggers: []string{"mysql", "mariadb"}, re: regexp.MustCompile(`(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlslap|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?:"([^"]*)"|'([^']*)'|([^\s"'-]\S*))`), group: anyGroup},
		{triggers: []string{"sshpass"}, re: regexp.MustCompile(`(?i)sshpass\s+-p\s*(?:"([^"]*)"|'([^']*)'|(\S+))`), group: anyGroup, word: true},
		{triggers: []string{"curl"}, re: regexp.MustCompile(`(?i)\bcurl\b[^\n|;&]*?\s(?:-u|--user)\s*["']?[^\s:"']+:([^\s"']+)`), group: 1},
		// name=value, name: value, name := value and name => value with a
		// secret-looking name, in code, config files, .env files and JSON.
		{triggers: []string{"token", "secret", "credential", "key", "passw", "private", "auth"}, find: assignments},
	}
}

// firstGroup is the span of the first of groups 1-3 that matched.
func firstGroup(m []int) (int, int) {
	for g := 1; g <= 3 && 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
	}
	return -1, -1
}
