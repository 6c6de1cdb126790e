package agent

import "path/filepath"

// OwnPaths are the places in the user's home where an agent CLI keeps its
// configuration, login and sessions: the sealed box it runs in binds
// these directories read-write and copies the files in (a CLI rewrites
// them by renaming over them, which a bound file refuses; what it changes
// there is not kept). getenv reads the task's environment; home is its
// HOME. A COMMAND has none.
func OwnPaths(kind string, getenv func(string) string, home string) (dirs, files []string) {
	or := func(v, def string) string {
		if v != "" && filepath.IsAbs(v) {
			return v
		}
		return def
	}
	switch kind {
	case ToolClaudeCode:
		dirs = []string{or(getenv("CLAUDE_CONFIG_DIR"), filepath.Join(home, ".claude"))}
		files = []string{filepath.Join(home, ".claude.json")}
	case ToolCodex:
		dirs = []string{or(getenv("CODEX_HOME"), filepath.Join(home, ".codex"))}
	case ToolGemini:
		dirs = []string{filepath.Join(home, ".gemini")}
	case ToolOpenCode:
		for _, x := range []struct{ env, def string }{
			{"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"},
			{"XDG_STATE_HOME", ".local/state"}, {"XDG_CACHE_HOME", ".cache"},
		} {
			dirs = append(dirs, filepath.Join(or(getenv(x.env), filepath.Join(home, x.def)), "opencode"))
		}
	}
	return dirs, files
}

// OpenCodeLogin is OpenCode's login file in the user's own data
// directory (XDG_DATA_HOME of the server, else ~/.local/share): a task's
// runs keep their data elsewhere (OpenCodeDataHome), where a copy of it
// is put before each run.
func OpenCodeLogin(getenv func(string) string, home string) string {
	base := getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "opencode", "auth.json")
}
