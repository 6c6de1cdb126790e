package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
)

// IO is where a command reads and writes, and the environment it runs
// in: its working directory and its variables. Commands read neither from
// the process, so that tests run them in-process, several at once, each in
// a directory and an environment of its own.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	// Dir is the working directory, absolute: every relative path a
	// command is given (on its command line or in a variable) is taken
	// from it, and the tracker is looked for from it.
	Dir string
	// Getenv returns an environment variable's value, "" when unset.
	Getenv func(key string) string
}

// StdIO is the process's own streams, working directory and environment.
// A working directory that cannot be found (it was removed) is "." for the
// commands that do not need it.
func StdIO() IO {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Dir: wd, Getenv: os.Getenv}
}

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
