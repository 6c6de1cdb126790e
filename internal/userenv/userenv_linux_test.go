package userenv

import (
	"os"
	"testing"
)

// An Env of a list answers from the list alone, as os would answer in a
// process started with it (the XDG directories of Linux: the file builds
// there only); the zero Env answers as os does.
func TestEnvAnswersAsTheProcessWould(t *testing.T) {
	e := Of([]string{"HOME=/h", "XDG_CACHE_HOME=/c", "PATH=/a", "PATH=/b"})
	if v, ok := e.LookupEnv("PATH"); v != "/b" || !ok {
		t.Errorf("PATH = %q %v, want the last setting", v, ok)
	}
	if _, ok := e.LookupEnv("USER"); ok {
		t.Error("USER is set: the process's environment leaked in")
	}
	for _, c := range []struct {
		vars       []string
		cache, err string
	}{
		{[]string{"HOME=/h", "XDG_CACHE_HOME=/c"}, "/c", ""},
		{[]string{"HOME=/h"}, "/h/.cache", ""},
		{[]string{"HOME=/h", "XDG_CACHE_HOME=rel"}, "", "path in $XDG_CACHE_HOME is relative"},
		{nil, "", "neither $XDG_CACHE_HOME nor $HOME are defined"},
	} {
		got, err := Of(c.vars).CacheDir()
		if got != c.cache || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("CacheDir of %q = %q, %v; want %q, %q", c.vars, got, err, c.cache, c.err)
		}
	}
	for _, c := range []struct {
		vars       []string
		state, err string
	}{
		{[]string{"HOME=/h", "XDG_STATE_HOME=/s"}, "/s", ""},
		{[]string{"HOME=/h", "XDG_STATE_HOME=rel"}, "/h/.local/state", ""},
		{nil, "", "$HOME is not defined"},
	} {
		got, err := Of(c.vars).StateDir()
		if got != c.state || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("StateDir of %q = %q, %v; want %q, %q", c.vars, got, err, c.state, c.err)
		}
	}

	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var zero Env
	want, wantErr := os.UserCacheDir()
	if got, err := zero.CacheDir(); got != want || (err == nil) != (wantErr == nil) {
		t.Errorf("the zero Env's CacheDir is %q, %v; os says %q, %v", got, err, want, wantErr)
	}
	if got, _ := zero.HomeDir(); got != os.Getenv("HOME") {
		t.Errorf("the zero Env's HomeDir is %q", got)
	}
}
