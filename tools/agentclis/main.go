// Command agentclis installs Node and the coding-agent CLIs the tests run
// (Claude Code, Codex, Gemini CLI, OpenCode, at the versions pinned in
// internal/modelsim) into the npm cache the tests use
// ($SUDOCODE_NPM_CACHE, default ~/.cache/sudocode-npm). A CLI already
// there is not installed again. .ci/run runs it before the tests, so that
// the four CLIs' tests start at once over one installed cache.
//
//	go run ./tools/agentclis
package main

import (
	"fmt"
	"os"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/npmtool"
)

func main() {
	cache, err := npmtool.CacheDir()
	if err == nil {
		err = modelsim.InstallCLIs()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentclis:", err)
		os.Exit(1)
	}
	fmt.Println("the coding-agent CLIs are installed in", cache)
}
