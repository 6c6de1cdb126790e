// Package modelsim is a scripted model server on loopback, and the set-up
// that runs the real coding-agent CLIs (Claude Code, Codex, Gemini CLI,
// OpenCode; npm packages at the versions pinned in clis.go) offline
// against it, so that tests drive the real programs end to end.
//
// # The simulator
//
// Start(t) serves on 127.0.0.1 and speaks enough of each vendor's API for
// a scripted episode: Anthropic Messages (POST /v1/messages, streamed as
// SSE or not, and count_tokens), OpenAI Responses (POST /v1/responses,
// streamed) and Chat Completions (POST /v1/chat/completions, streamed or
// not), and Gemini (POST /v1beta/models/M:streamGenerateContent?alt=sse,
// :generateContent, :countTokens). GET …/models lists one model. Any
// other path is answered 404 and listed by Unknown.
//
// The prompt holds the script, one step per model call (see step in
// script.go):
//
//	@sim write hello.txt "hi\n"
//	@sim shell "git commit -am done"
//	@sim text "Done: hello.txt says hi."
//	@sim error 500
//	@sim hang
//	@sim wait gate
//
// The step taken is the number of tool results after the last user
// message that holds a script, so a resumed session's new prompt starts
// its own script (and one without a script goes on with the last), and a
// retried call repeats its step. A wait is no step: it holds the answer
// of the step after it until its file exists. A write or shell
// step says a sentence, then calls the CLI's own tool, found among the
// tools the request offers (Write/Bash, apply_patch/exec_command,
// write_file/run_shell_command, write/bash), with the argument names and
// shapes that tool's schema declares; a relative path is made absolute
// against the working directory the CLI last told its model (a session
// resumed on another machine tells it anew). Text is streamed
// in several chunks. Calls that offer no tools are the CLIs' side queries
// (titles, Gemini's model routing and next-speaker checks): they never
// follow the script, and get a short text or JSON fitting the schema they
// ask for.
//
// Requests records every request (path without the key query, headers
// without credentials, body, the tools offered, the tools the simulator
// called), so a test can check that a resumed session carried its earlier
// turns; Tools and Calls summarise them.
//
// # Running the CLIs
//
// SetupClaude, SetupCodex, SetupGemini and SetupOpenCode install their CLI
// (skipped when that fails, a failure under CI=true) and return the
// environment to run it with: a scratch HOME (and XDG dirs, CODEX_HOME)
// holding the CLI's config, the CLI and Node 22 first on PATH, no
// variable of the outer environment naming a vendor, a key or a proxy,
// and HTTP(S)_PROXY set to a closed loopback port with NO_PROXY for
// 127.0.0.1, so nothing but the simulator is reached. internal/cli's
// TestAgentRealCLIs runs each CLI through the orchestrator and its
// adapter (internal/orchestrator/agent), as `sudocode mcp agent` does.
//
// # What the CLIs needed beyond the fact sheet (verified on the pinned versions)
//
// Claude Code 2.1.331: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 suffice; it then calls only
// POST /v1/messages?beta=true, streamed, one call per model turn (no
// count_tokens, model list or title call). Its Write tool is handed an
// absolute path; the system prompt names the "Primary working directory".
// The shell test needs bypassPermissions (acceptEdits refuses commands
// such as git commit headless, though it runs `echo x > file` in the
// working directory), hence IS_SANDBOX=1 as root.
//
// Codex 0.169.0: the provider lives in $CODEX_HOME/config.toml with
// env_key naming the variable that holds the key. With gpt-5.5 it offers
// exec_command (a "cmd" string; not the older shell tool with an argv
// array) and apply_patch as a Responses custom (freeform) tool: the
// model's call is a custom_tool_call item whose input is the raw patch,
// answered by a custom_tool_call_output. Its prompt carries the directory
// as <cwd>…</cwd>. It calls nothing but POST /v1/responses.
//
// Gemini CLI 0.61.0: before each prompt it makes a routing call,
// :generateContent on gemini-3.5-flash-lite with no tools and a JSON
// schema (a complexity score); the main calls go to the model it picks
// (gemini-3.8-flash for the simulator's low score; gemini-3.1-pro-preview
// when the answer does not parse) with :streamGenerateContent?alt=sse,
// and the function declarations carry parametersJsonSchema. The API key comes as
// a header. After a resume, the history it sends holds the write's
// functionResponse twice. write_file takes a relative file_path.
//
// OpenCode 1.18.33: it reads the provider from the global config,
// $XDG_CONFIG_HOME/opencode/opencode.json, whose "model" makes -m
// unnecessary; @ai-sdk/openai-compatible is bundled (nothing is
// installed at run time). It streams Chat Completions with
// stream_options.include_usage, and a new session's first call is a
// title request without tools. Without the dead proxy a run took 5 s
// rather than 2 s here: it tries the network at start-up, and needs none
// of it. It retries, for about a minute (six calls), a failed
// call whose body matches its list of transient errors ("server_error"
// among them), whatever the status and though its own error says
// isRetryable false; a 400 whose body says invalid_request_error, as
// OpenAI's does, ends the run at once: exit 1 with an error event.
//
// On a 400 Claude Code exits 1 (a result with terminal_reason api_error,
// after several calls), Codex exits 1 after turn.failed, and Gemini exits
// 144 with a result of status error. Codex warns on stderr that it will
// not create its helper binaries under a temporary directory
// (CODEX_HOME is in the test's temp dir); its tools work regardless.
package modelsim
