// Package agent is what the orchestrator knows about each coding-agent
// CLI: how to invoke it headless, and how to read its event stream into
// one normalized log model.
package agent

import "time"

// Event kinds of the normalized log model.
const (
	KindMessage    = "message"           // assistant (or agent) text
	KindToolCall   = "tool_call"         // the agent calls a tool
	KindToolResult = "tool_result"       // a tool's result
	KindFileChange = "file_change"       // files the run changed, read from git by the orchestrator (never from tool calls)
	KindDenied     = "permission_denied" // the CLI refused a tool call (its permission mode or sandbox)
	KindUsage      = "usage"             // tokens and cost
	KindError      = "error"             // an error the agent reported
	KindCompletion = "completion"        // the run ended (success or not)
	KindLog        = "log"               // anything else worth keeping (a COMMAND's output line, an unknown event)
	KindStderr     = "stderr"            // a line the process wrote to stderr
)

// Keys of a completion's Data that say which of its figures the CLI
// counts for the whole session rather than for this run (true when so):
// after a resume the orchestrator subtracts the session's previous
// figures to get the run's.
const (
	DataSessionCost   = "session_cost"
	DataSessionTokens = "session_tokens"
)

// DataFiles is the Data key of a tool_call (or Codex's file change
// result) that lists the files the agent tried to change: an attempt,
// which the CLI may have refused; what changed is read from git.
const DataFiles = "files"

// Event is one normalized log entry.
type Event struct {
	Time      time.Time      `json:"time"`
	Kind      string         `json:"kind"`
	Text      string         `json:"text,omitempty"`
	Tool      string         `json:"tool,omitempty"`
	SessionID string         `json:"session_id,omitempty"`
	Success   *bool          `json:"success,omitempty"` // completion only
	CostUSD   *float64       `json:"cost_usd,omitempty"`
	Tokens    *Tokens        `json:"tokens,omitempty"`
	Files     []string       `json:"files,omitempty"` // file_change only
	Data      map[string]any `json:"data,omitempty"`  // kind-specific extras (tool input, ids)
}

// Tokens are usage counts.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// RunSpec is one run of an agent in a task's worktree.
type RunSpec struct {
	Instructions  string         // the prompt
	Dir           string         // the worktree
	ResumeSession string         // continue this session (update_task on a waiting task); empty for a fresh run
	Config        map[string]any // create_task's config: model, command (COMMAND's argv), extra flags …
	MCPServers    []MCPServer    // MCP servers the agent is given, in its CLI's own configuration
	// ConfigDir is a directory outside the worktree, the task's own, where
	// an adapter may write configuration files (Gemini's settings).
	ConfigDir string
	// Path is the PATH that Check looks the CLI up in: the one of the
	// user the task runs for, which its process is started with; "" is
	// the process's.
	Path string
}

// Invocation is how to start a run: argv (never through a shell), extra
// environment, and what to write on stdin (then close it).
type Invocation struct {
	Argv  []string
	Env   []string
	Stdin string
}

// Adapter knows one CLI.
type Adapter interface {
	// Kind is the tool name of create_task: CLAUDECODE, GEMINI, CODEX, OPENCODE or COMMAND.
	Kind() string
	// Check reports a missing CLI as an error naming what to install.
	Check(spec RunSpec) error
	// Invocation builds the headless command line for spec.
	Invocation(spec RunSpec) (Invocation, error)
	// NewParser returns a parser for one run's stdout.
	NewParser() Parser
	// Credentials are the server variables that carry this CLI's
	// credentials and settings (names, or prefixes ending in '*'); its
	// process inherits them and no other CLI's (see Environ).
	Credentials() []string
}

// Parser turns a run's stdout lines into events.
type Parser interface {
	// Line parses one stdout line (without its newline); unknown lines and
	// types become KindLog events or nothing, never an error.
	Line(line []byte, now time.Time) []Event
	// Finish is called once the process exited; it may add a completion
	// event if the stream had none.
	Finish(exitCode int, now time.Time) []Event
	// SessionID is the agent's session id once known (for resume).
	SessionID() string
}
