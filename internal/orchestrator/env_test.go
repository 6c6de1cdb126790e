package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// envOf runs `env` as a COMMAND task with config and returns the
// variables it printed, by name.
func envOf(t *testing.T, f *fixture, config map[string]any) map[string]string {
	t.Helper()
	config["command"] = []string{"env"}
	raw, _ := json.Marshal(config)
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "print env", Config: raw}).ID)
	if task.Status != StatusCompleted {
		t.Fatalf("env task: %+v", task)
	}
	evs, err := f.o.Logs(context.Background(), task.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, e := range evs {
		if e.Event.Kind == agent.KindLog {
			if k, v, ok := strings.Cut(e.Event.Text, "="); ok {
				vars[k] = v
			}
		}
	}
	return vars
}

// A real COMMAND task sees the neutral variables and none of the server's
// secrets, agent credentials included, unless its config passes them.
func TestCommandTaskGetsNoSecrets(t *testing.T) {
	secrets := map[string]string{
		"ANTHROPIC_API_KEY":        "sk-ant-api03-secretsecretsecret",
		"CLAUDE_CODE_OAUTH_TOKEN":  "oauth-secret",
		"OPENAI_API_KEY":           "sk-proj-secretsecretsecret",
		"CODEX_API_KEY":            "codex-secret",
		"GEMINI_API_KEY":           "gemini-secret",
		"GOOGLE_API_KEY":           "AIzaSecretSecretSecret",
		"OPENCODE_SERVER_PASSWORD": "opencode-secret",
		"AWS_SECRET_ACCESS_KEY":    "aws-secret",
		"AWS_ACCESS_KEY_ID":        "AKIAABCDEFGHIJKLMNOP",
		"GITHUB_TOKEN":             "ghp_secretsecretsecretsecret",
		"SSH_AUTH_SOCK":            "/tmp/ssh-agent.sock",
		"NPM_TOKEN":                "npm-secret",
		"DATABASE_URL":             "postgres://u:p@db/x",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	f := newFixture(t, testkit.Repo(t))

	got := envOf(t, f, map[string]any{})
	for k := range secrets {
		if v, ok := got[k]; ok {
			t.Errorf("the COMMAND task received %s=%s", k, v)
		}
	}
	for _, k := range []string{"PATH", "HOME", "LANG", "PWD", agent.EnvInstructions} {
		if _, ok := got[k]; !ok {
			t.Errorf("the COMMAND task did not receive %s (got %v)", k, got)
		}
	}

	// Variables named in config.pass_env reach it, and nothing more.
	got = envOf(t, f, map[string]any{"pass_env": []string{"OPENAI_API_KEY", "AWS_*"}})
	for _, k := range []string{"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"} {
		if got[k] != secrets[k] {
			t.Errorf("pass_env: %s = %q, want %q", k, got[k], secrets[k])
		}
	}
	for _, k := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK"} {
		if v, ok := got[k]; ok {
			t.Errorf("pass_env without %s: received %s=%s", k, k, v)
		}
	}
}

// An agent's box has a home of its own, without the user's git config: a
// commit the agent makes carries the identity the user's checkout has
// (here the user's, from their home), and an identity the server was
// given in its environment wins over it.
func TestAgentCommitsAsTheUser(t *testing.T) {
	repo := testkit.Repo(t)
	for _, key := range []string{"user.name", "user.email"} { // the identity is the user's, in their home
		testkit.Git(t, repo, "config", "--unset-all", key)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config")) // none there: ~/.gitconfig holds it
	f := newFixture(t, repo)
	commit := func(f *fixture) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"command": []string{"/bin/sh", "-c", "echo hi > hi.txt && git add hi.txt && git commit -qm hi"}})
		task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "commit", Config: raw}).ID)
		if task.Status != StatusCompleted {
			t.Fatalf("the agent's commit failed: %+v", task.Error)
		}
		return testkit.Git(t, repo, "log", "-1", "--format=%an <%ae> / %cn <%ce>", task.Branch)
	}
	if got, want := commit(f), "Ada Lovelace <ada@example.com> / Ada Lovelace <ada@example.com>"; got != want {
		t.Errorf("the agent committed as %q, want %q", got, want)
	}
	t.Setenv("GIT_AUTHOR_NAME", "Server Bot")
	t.Setenv("GIT_AUTHOR_EMAIL", "bot@example.com")
	if got, want := commit(newFixture(t, repo)), "Server Bot <bot@example.com> / Ada Lovelace <ada@example.com>"; got != want {
		t.Errorf("with the server's GIT_AUTHOR_*, the agent committed as %q, want %q", got, want)
	}
}
