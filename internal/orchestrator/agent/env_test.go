package agent

import (
	"slices"
	"strings"
	"testing"
)

// serverEnv is a server environment holding every kind of variable an
// agent might or must not see.
var serverEnv = []string{
	"PATH=/usr/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "XDG_CONFIG_HOME=/home/u/.config",
	"HTTPS_PROXY=http://proxy:3128", "SSL_CERT_FILE=/etc/ssl/cert.pem",
	"ANTHROPIC_API_KEY=a", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "CLAUDE_CODE_OAUTH_TOKEN=c",
	"OPENAI_API_KEY=o", "CODEX_HOME=/x", "GEMINI_API_KEY=g", "GOOGLE_API_KEY=gg", "GOOGLE_CLOUD_PROJECT=p",
	"OPENCODE_CONFIG=/y", "OPENROUTER_API_KEY=r", "GROQ_API_KEY=q",
	"AWS_SECRET_ACCESS_KEY=s", "AWS_ACCESS_KEY_ID=k", "GITHUB_TOKEN=t", "GH_TOKEN=t", "NPM_TOKEN=n",
	"SSH_AUTH_SOCK=/tmp/agent", "GIT_DIR=/repo/.git", "DATABASE_URL=postgres://u:p@h/d", "SUDOCODE_TOKEN=x",
	"anthropic_api_key=lower", "IS_SANDBOX=1",
	"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_COMMITTER_NAME=Ann", "GIT_COMMITTER_EMAIL=ann@example.com",
}

// neutral are what every process gets, the identity its commits carry included.
var neutral = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "XDG_CONFIG_HOME", "HTTPS_PROXY", "SSL_CERT_FILE",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}

// TestEnviron proves which server variables each adapter's process gets:
// the neutral base, its own CLI's credentials and nothing else; COMMAND
// only what config.pass_env names.
func TestEnviron(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		config map[string]any
		own    []string
	}{
		{ToolClaudeCode, nil, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "IS_SANDBOX"}},
		{ToolCodex, nil, []string{"OPENAI_API_KEY", "CODEX_HOME"}},
		{ToolGemini, nil, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT"}},
		{ToolOpenCode, nil, []string{"OPENCODE_CONFIG", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
			"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "OPENROUTER_API_KEY", "GROQ_API_KEY"}},
		{ToolCommand, nil, nil},
		{ToolCommand, map[string]any{"pass_env": []any{"GITHUB_TOKEN", "AWS_*"}}, []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"}},
		{ToolClaudeCode, map[string]any{"pass_env": []string{"AWS_*"}}, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "IS_SANDBOX",
			"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"}},
	} {
		a, err := Lookup(tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		env, err := Environ(a, RunSpec{Dir: "/wt", Config: tc.config}, []string{"EXTRA=1"}, serverEnv)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.kind, tc.config, err)
		}
		var got []string
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			got = append(got, k)
		}
		want := append(append(append([]string(nil), neutral...), tc.own...), "EXTRA", "PWD")
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s %v:\n got %v\nwant %v", tc.kind, tc.config, got, want)
		}
		if env[len(env)-1] != "PWD=/wt" {
			t.Errorf("%s: PWD is not last: %v", tc.kind, env)
		}
	}
}

func TestPassEnvChecked(t *testing.T) {
	for _, bad := range []any{"AWS_*", []any{"*"}, []any{"A=B"}, []any{"A*B"}, []any{""}, []any{1}} {
		if _, err := Environ(Command{}, RunSpec{Config: map[string]any{"pass_env": bad}}, nil, serverEnv); err == nil {
			t.Errorf("pass_env %#v accepted", bad)
		}
	}
}
