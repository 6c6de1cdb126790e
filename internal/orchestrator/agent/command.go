package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Command is the COMMAND adapter: Config["command"] is the argv (a list of
// strings). The instructions go on stdin and in SUDOCODE_TASK_INSTRUCTIONS.
type Command struct{}

// EnvInstructions names the variable that carries a COMMAND's instructions.
const EnvInstructions = "SUDOCODE_TASK_INSTRUCTIONS"

func (Command) Kind() string { return ToolCommand }

// Credentials: none; a command gets what its config.pass_env names.
func (Command) Credentials() []string { return nil }

func commandArgv(spec RunSpec) ([]string, error) {
	argv, err := configStrings(spec.Config, "command")
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return nil, errors.New(`COMMAND needs config.command: the argv, e.g. ["make", "test"]`)
	}
	return argv, nil
}

func (Command) Check(spec RunSpec) error {
	argv, err := commandArgv(spec)
	if err != nil {
		return err
	}
	bin := argv[0]
	// os/exec resolves a relative path with a separator against cmd.Dir.
	if strings.ContainsRune(bin, filepath.Separator) && !filepath.IsAbs(bin) && spec.Dir != "" {
		bin = filepath.Join(spec.Dir, bin)
	}
	if _, err := LookPath(bin, spec.Path); err != nil {
		return fmt.Errorf("command %q not found: %w", argv[0], err)
	}
	return nil
}

func (Command) Invocation(spec RunSpec) (Invocation, error) {
	argv, err := commandArgv(spec)
	if err != nil {
		return Invocation{}, err
	}
	env := pwdEnv(spec)
	instr := spec.Instructions
	if len(instr) > maxEnvInstructions {
		// Linux caps one env string at 128 KiB (E2BIG at Start); stdin
		// always carries the full text.
		instr = truncateUTF8(instr, maxEnvInstructions)
		env = append(env, EnvInstructions+"_TRUNCATED=1")
	}
	env = append(env, EnvInstructions+"="+instr)
	if len(spec.MCPServers) > 0 {
		env = append(env, commandMCP(spec.MCPServers))
	}
	return Invocation{Argv: argv, Env: env, Stdin: spec.Instructions}, nil
}

// maxEnvInstructions keeps NAME=value under Linux's MAX_ARG_STRLEN (128 KiB).
const maxEnvInstructions = 120 << 10

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (Command) NewParser() Parser { return &commandParser{} }

type commandParser struct{}

func (*commandParser) Line(line []byte, now time.Time) []Event {
	return []Event{{Time: now, Kind: KindLog, Text: string(line)}}
}

func (*commandParser) Finish(exitCode int, now time.Time) []Event {
	text := "exited with code 0"
	if exitCode != 0 {
		text = fmt.Sprintf("exited with code %d", exitCode)
	}
	return []Event{{Time: now, Kind: KindCompletion, Text: text, Success: new(exitCode == 0), Data: map[string]any{"exit_code": exitCode}}}
}

func (*commandParser) SessionID() string { return "" }
