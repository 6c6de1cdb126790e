package policy

import (
	"reflect"
	"testing"
)

// Variables that make a program load code or run another program at
// start-up, and secret-named variables, are refused like LD_PRELOAD and
// API_KEY, whatever their case; ordinary settings pass.
func TestStartupAndSecretEnvRefused(t *testing.T) {
	f := newFixture(t)
	for _, k := range []string{
		"GCONV_PATH", "LOCPATH", "NLSPATH", "GLIBC_TUNABLES", "MALLOC_TRACE", "LD_DEBUG_OUTPUT", "LD_PROFILE",
		"PERL5LIB", "PERLLIB", "PERL5DB", "RUBYLIB", "NODE_PATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH",
		"PROMPT_COMMAND", "PS4", "ZDOTDIR", "SHELLOPTS", "BASHOPTS",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS",
		"GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_DIR",
		"PAGER", "EDITOR", "VISUAL", "LESSOPEN", "SSH_ASKPASS", "SUDO_ASKPASS",
		"gconv_path", "perl5lib", "Node_Path", "git_ssh_command", "java_tool_options",
		"github_token", "api_key", "aws_secret_access_key", "AWS_ACCESS_KEY_ID", "npm_config__auth",
	} {
		r := check(f.root, "npm test", map[string]string{k: "x"}, false)
		if r == nil || r.Permission != PermSensitive || !reflect.DeepEqual(r.Details["env_keys"], []string{k}) {
			t.Errorf("env %s: %+v, want a sensitive_env refusal naming it", k, r)
		}
		if r := check(f.root, "npm test", map[string]string{k: "x"}, true); r != nil {
			t.Errorf("dangerous mode, env %s: %+v", k, r)
		}
	}
	for _, k := range []string{
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT",
		"NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "JAVA_HOME", "GOFLAGS", "CI", "DEBUG", "RUST_LOG", "AUTHOR",
	} {
		if r := check(f.root, "npm test", map[string]string{k: "x"}, false); r != nil {
			t.Errorf("env %s refused: %+v", k, r)
		}
	}
}
