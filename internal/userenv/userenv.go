// Package userenv is the environment of the user a command runs for, as
// a value: its variables and the directories they place (home, cache,
// state). The CLI runs commands in-process, each with an environment of
// its own, so nothing that describes the user's environment is read from
// the process where a command gets an Env.
package userenv

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is an environment. The zero Env is the process's own, read at each
// use: what a library caller that runs for the process's user gets (a
// package's tests shape it with t.Setenv). Of makes any other.
type Env struct {
	vars  []string
	index map[string]string
}

// Of is the environment of vars ("KEY=value", the last setting of a name
// winning, as for a process); nil and empty are an empty environment.
func Of(vars []string) Env {
	e := Env{vars: append([]string{}, vars...), index: make(map[string]string, len(vars))}
	for _, kv := range vars {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e.index[k] = v
		}
	}
	return e
}

// Environ is the environment as "KEY=value" settings, as a child process
// inherits it; a fresh slice each time.
func (e Env) Environ() []string {
	if e.index == nil {
		return os.Environ()
	}
	return append([]string{}, e.vars...)
}

// LookupEnv returns a variable's value and whether it is set.
func (e Env) LookupEnv(key string) (string, bool) {
	if e.index == nil {
		return os.LookupEnv(key)
	}
	v, ok := e.index[key]
	return v, ok
}

// Getenv returns a variable's value, "" when unset.
func (e Env) Getenv(key string) string {
	v, _ := e.LookupEnv(key)
	return v
}

// HomeDir is the user's home directory, as os.UserHomeDir finds it in
// the process's environment, with its errors.
func (e Env) HomeDir() (string, error) {
	env, enverr := "HOME", "$HOME"
	if runtime.GOOS == "windows" {
		env, enverr = "USERPROFILE", "%userprofile%"
	}
	if v := e.Getenv(env); v != "" {
		return v, nil
	}
	return "", errors.New(enverr + " is not defined")
}

// CacheDir is the user's cache directory, as os.UserCacheDir finds it in
// the process's environment, with its errors.
func (e Env) CacheDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := e.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("%LocalAppData% is not defined")
	case "darwin", "ios":
		if h := e.Getenv("HOME"); h != "" {
			return h + "/Library/Caches", nil
		}
		return "", errors.New("$HOME is not defined")
	}
	d := e.Getenv("XDG_CACHE_HOME")
	switch {
	case d == "":
		h := e.Getenv("HOME")
		if h == "" {
			return "", errors.New("neither $XDG_CACHE_HOME nor $HOME are defined")
		}
		return h + "/.cache", nil
	case !filepath.IsAbs(d):
		return "", errors.New("path in $XDG_CACHE_HOME is relative")
	}
	return d, nil
}

// StateDir is the user's state directory: $XDG_STATE_HOME when it is an
// absolute path, else ~/.local/state as the XDG spec says; the error is
// HomeDir's.
func (e Env) StateDir() (string, error) {
	if d := e.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := e.HomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state"), nil
}
