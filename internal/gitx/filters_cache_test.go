package gitx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Filters remembers its answer only while every configuration file it
// came from is unchanged: a driver defined since, in the repository's
// configuration, the user's or a file one of them includes, is found by
// the next call.
func TestFiltersFollowTheConfiguration(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	repo := newRepo(t)
	ctx := context.Background()
	r, err := Discover(ctx, Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Dir: repo, Repo: r}
	want := func(names ...string) {
		t.Helper()
		got, err := Filters(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Fatalf("filters %q, want %q", got, names)
		}
	}
	want()
	testkit.Git(t, repo, "config", "filter.repo.clean", "cat")
	want("repo")
	write(t, filepath.Join(home, ".gitconfig"), "[filter \"home\"]\n\tsmudge = cat\n")
	want("home", "repo")
	write(t, filepath.Join(home, "xdg", "git", "config"), "[filter \"xdg\"]\n\tprocess = cat\n")
	want("home", "repo", "xdg")
	testkit.Git(t, repo, "config", "--unset", "filter.repo.clean")
	want("home", "xdg")
	// An included file is not read by the snapshot: with an include,
	// git answers every time.
	write(t, filepath.Join(home, "extra"), "[filter \"first\"]\n\tclean = cat\n")
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = extra\n")
	want("first", "xdg")
	write(t, filepath.Join(home, "extra"), "[filter \"second\"]\n\tclean = cat\n")
	want("second", "xdg")
}

// With the configuration unchanged, the answer comes without a second
// git: with the git binary gone, Filters still answers.
func TestFiltersRemembered(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	repo := newRepo(t)
	testkit.Git(t, repo, "config", "filter.lfs.process", "cat")
	ctx := context.Background()
	r, err := Discover(ctx, Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Filters(ctx, Options{Dir: repo, Repo: r}); err != nil {
		t.Fatal(err)
	}
	gone := Options{Dir: repo, Repo: r, Binary: filepath.Join(t.TempDir(), "no-git")}
	got, err := Filters(ctx, gone)
	if err != nil || !slices.Equal(got, []string{"lfs"}) {
		t.Fatalf("filters %q, %v; want [lfs] remembered", got, err)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = x\n"), 0o644)
	if _, err := Filters(ctx, gone); err == nil {
		t.Fatal("a changed configuration was answered from memory")
	}
}
