package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/userenv"
)

// IO is where a command reads and writes, and the environment it runs
// in: its working directory, its variables and the program it is. Commands
// read none of them from the process, so that tests run them in-process,
// several at once, each in a directory and an environment of its own.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// Dir is the working directory, absolute: every relative path a
	// command is given (on its command line or in a variable) is taken
	// from it, and the tracker is looked for from it.
	Dir string
	// Env is the environment: the variables commands read, and the one
	// the agents of tasks start from, with the user's home, state and
	// cache directories.
	Env userenv.Env
	// Executable is the sudocode binary, which agents are given as the
	// tracker's MCP server ("Executable mcp"); empty gives them none. It
	// is the process's own program in the binary, but a command run
	// in-process (by a test) runs in a program that is not sudocode, so
	// it names the binary to give them.
	Executable string
}

// StdIO is the process's own streams, working directory, environment and
// program. A working directory that cannot be found (it was removed) is
// "." for the commands that do not need it; a program that cannot be
// found gives agents no tracker.
func StdIO() IO {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Dir: wd, Env: userenv.Of(os.Environ()), Executable: exe}
}

// Getenv returns an environment variable's value, "" when unset.
func (s IO) Getenv(key string) string { return s.Env.Getenv(key) }

// path is p taken from the working directory; "" stays "" (a default).
// A command passes each path it is given through it, as nothing else in
// the process knows the command's working directory.
func (s IO) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// readFile reads the file at p, taken from the working directory; its
// error names p as given.
func (s IO) readFile(p string) ([]byte, error) {
	b, err := os.ReadFile(s.path(p))
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = p
	}
	return b, err
}

// orEnv gives a flag precedence over its environment variable.
func (s IO) orEnv(flagValue, key string) string {
	if flagValue != "" {
		return flagValue
	}
	return s.Getenv(key)
}

// actor is who a change is recorded as: SUDOCODE_ACTOR, else the user.
func (s IO) actor() string {
	if a := s.Getenv("SUDOCODE_ACTOR"); a != "" {
		return a
	}
	if u := s.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "unknown"
}
