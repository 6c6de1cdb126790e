package mcpx

import (
	"encoding/json"
	"strings"
	"testing"
)

// redactionSamples are realistic (made-up) secrets in the free text a tool
// call carries: a command line, a patch, a header, an error message. Each
// secret must vanish from the audit line; keep is text around it that must
// stay readable.
var redactionSamples = []struct {
	name, text, secret, keep string
}{
	{"GitHub classic token", "git push https://x-access-token:ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234@github.com/o/r", "ghp_R2d2C3poR2d2C3po", "git push"},
	{"GitHub fine-grained token", "export GH=github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01", "github_pat_11ABCDEFG0aBcDeFgHiJkL", "export GH="},
	{"GitHub app token", "token ghs_16C7e42F292c6912E7710c838347Ae178B4a expired", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "expired"},
	{"GitLab token", "curl --header 'PRIVATE-TOKEN: glpat-Xy9zAb3dEf6hIj8kLm0n' https://gitlab.example.com/api/v4/projects", "glpat-Xy9zAb3dEf6hIj8kLm0n", "https://gitlab.example.com/api/v4/projects"},
	{"Slack bot token", "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx ./notify", "xoxb-123456789012-1234567890123", "./notify"},
	{"Slack user token", "use xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef now", "xoxp-123456789012-123456789012", "now"},
	{"Slack webhook", "curl -X POST https://hooks.slack.com/services/T0ABCDE12/B0ABCDE34/AbCdEfGhIjKlMnOpQrStUvWx -d @msg.json", "T0ABCDE12/B0ABCDE34/AbCdEfGhIjKlMnOpQrStUvWx", "-d @msg.json"},
	{"Stripe secret key", "stripe.api_key = sk_live_51HaBcDeFgHiJkLmNoPqRsTuVwXyZ0123", "sk_live_51HaBcDeFgHiJkLmNoPq", "stripe."},
	{"Stripe restricted key", "STRIPE_KEY rk_live_51HaBcDeFgHiJkLmNoPqRsTuVwXyZ0123 set", "rk_live_51HaBcDeFgHiJkLmNoPq", "set"},
	{"Google API key", "fetch('https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyA1bCdEfGhIjKlMnOpQrStUvWxYz0123456')", "AIzaSyA1bCdEfGhIjKlMnOpQrStUvWxYz0123456", "maps.googleapis.com"},
	{"AWS access key id", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws configure set"},
	{"AWS session key id", "ASIAY34FZKBOKMUTVV7A is temporary", "ASIAY34FZKBOKMUTVV7A", "is temporary"},
	{"AWS secret key in a patch", "*** Begin Patch\n*** Add File: .aws/credentials\n+[default]\n+aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n*** End Patch\n", "wJalrXUtnFEMI/K7MDENG", "+[default]"},
	{"JWT in a bearer header", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U' https://api.example.com", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "https://api.example.com"},
	{"JWT alone", "session eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhdXRoLmV4YW1wbGUuY29tIn0.c2lnbmF0dXJlc2lnbmF0dXJl", "eyJpc3MiOiJhdXRoLmV4YW1wbGUuY29tIn0", "session"},
	{"opaque bearer token", "Authorization: Bearer 7f3a9c1e5b2d8f4a6c0e9b3d7f1a5c8e", "7f3a9c1e5b2d8f4a6c0e9b3d7f1a5c8e", "Authorization"},
	{"basic auth header", "wget --header='Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==' https://example.com/f", "dXNlcjpwYXNzd29yZDEyMw", "https://example.com/f"},
	{"private key", "+-----BEGIN OPENSSH PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n+-----END OPENSSH PRIVATE KEY-----\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", ""},
	{"npm token", "//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "registry.npmjs.org"},
	{"PyPI token", "twine upload -p pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NQACKlszLCJhYmMiXQ dist/*", "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdo", "dist/*"},
	{"Anthropic key", "ANTHROPIC=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AA claude", "sk-ant-api03-AbCdEfGhIjKl", "claude"},
	{"OpenAI key", "client = OpenAI(api_key_value='sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789')", "sk-proj-AbCdEfGhIjKlMnOpQrSt", "client = OpenAI("},
	{"credentials in a URL", "git clone https://deploy:s3cr3tPassw0rd@git.example.com/team/repo.git", "s3cr3tPassw0rd", "git.example.com/team/repo.git"},
	{"database URL", "DATABASE_URL=postgres://app:Tr0ub4dor3@db.internal:5432/prod", "Tr0ub4dor3", "db.internal:5432/prod"},
	{"mysql password flag", "mysql -h db -u root -pS3cretPass42 shop < dump.sql", "S3cretPass42", "mysql -h db -u root"},
	{"password option", "mysqldump --password=hunter2hunter2 --all-databases", "hunter2hunter2", "--all-databases"},
	{"sshpass", "sshpass -p 'CorrectHorse9' ssh deploy@host", "CorrectHorse9", "ssh deploy@host"},
	{"env assignment", "+DB_PASSWORD=correct-horse-battery-staple\n+DB_HOST=localhost\n", "correct-horse-battery-staple", "DB_HOST=localhost"},
	{"YAML secret", "+client_secret: 9f8e7d6c5b4a39281706\n+client_id: my-app\n", "9f8e7d6c5b4a39281706", "client_id: my-app"},
	{"JSON api key", `+{"api_key": "abc123def456ghi789", "region": "eu"}`, "abc123def456ghi789", `"region": "eu"`},
}

// TestAuditRedactsCommonSecretFormats: every common secret format is
// replaced by [REDACTED] in an audit line, in arguments and in errors,
// with the text around it kept; ordinary values are untouched.
func TestAuditRedactsCommonSecretFormats(t *testing.T) {
	for _, s := range redactionSamples {
		var b strings.Builder
		audit := NewAuditStream(&b)
		args, _ := json.Marshal(map[string]any{"cmd": s.text})
		if err := audit.Write(AuditRecord{Client: "c", Server: "s", Tool: "t", Outcome: OutcomeError, Arguments: args, Error: "failed: " + s.text}); err != nil {
			t.Fatal(err)
		}
		var line struct {
			Arguments map[string]string `json:"arguments"`
			Error     string            `json:"error"`
		}
		if err := json.Unmarshal([]byte(b.String()), &line); err != nil {
			t.Fatalf("%s: %v: %s", s.name, err, b.String())
		}
		for field, got := range map[string]string{"arguments": line.Arguments["cmd"], "error": line.Error} {
			if strings.Contains(got, s.secret) || !strings.Contains(got, "[REDACTED]") || !strings.Contains(got, s.keep) {
				t.Errorf("%s: %s recorded as %q: want %q replaced by [REDACTED] and %q kept", s.name, field, got, s.secret, s.keep)
			}
		}
	}
	var b strings.Builder
	plain := "go test ./... -run TestX -count=1 && max_tokens = 1024 author: Bob path=internal/mcpx/http.go"
	args, _ := json.Marshal(map[string]any{"cmd": plain})
	NewAuditStream(&b).Write(AuditRecord{Arguments: args})
	if strings.Contains(b.String(), "[REDACTED]") || !strings.Contains(b.String(), plain) {
		t.Errorf("ordinary text was redacted: %s", b.String())
	}
}
