package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// gitMay runs git in dir, starting from the project's environment (so a
// merge driver finds the built sudocode); it returns the output and
// whether git succeeded (a merge that conflicts fails).
func gitMay(t *testing.T, p *proj, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := testkit.GitCmd(dir, args...)
	cmd.Env = testkit.GitEnv(p.env)
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out), err == nil
}

// TestCloneRegistersMergeDriver: git does not copy .git/config, so a
// clone's git would merge the record files as text. The first command in
// the clone registers the driver and says so, once.
func TestCloneRegistersMergeDriver(t *testing.T) {
	p, git := newGitProj(t)
	p.ok("issue", "create", "Committed issue")
	git("add", "-A")
	git("commit", "-qm", "tracker")
	clone := filepath.Join(t.TempDir(), "clone")
	git("clone", "-q", p.root, clone)
	if out, _ := gitMay(t, p, clone, "config", "--get", "merge.sudocode.driver"); out != "" {
		t.Fatalf("the clone has a driver before any command: %q", out)
	}

	r := runAt(t, clone, p.env, "", "ready")
	if r.code != 0 || !strings.Contains(r.stderr, "registered the tracker's merge driver") {
		t.Fatalf("first command in the clone: exit %d, stderr %q; want it to register the merge driver and say so", r.code, r.stderr)
	}
	if out, _ := gitMay(t, p, clone, "config", "--get", "merge.sudocode.driver"); strings.TrimSpace(out) != "sudocode merge-driver %O %A %B %P" {
		t.Fatalf("clone's driver = %q", out)
	}
	if r := runAt(t, clone, p.env, "", "ready"); r.code != 0 || r.stderr != "" {
		t.Fatalf("second command: exit %d, stderr %q; want silence", r.code, r.stderr)
	}

	// init in a clone, on the tracker the clone brought, registers it too.
	other := filepath.Join(t.TempDir(), "other")
	git("clone", "-q", p.root, other)
	if r := runAt(t, other, p.env, "", "init"); r.code != 0 {
		t.Fatalf("init in a clone: exit %d, stderr %q", r.code, r.stderr)
	}
	if out, _ := gitMay(t, p, other, "config", "--get", "merge.sudocode.driver"); strings.TrimSpace(out) != "sudocode merge-driver %O %A %B %P" {
		t.Fatalf("driver after init in a clone = %q", out)
	}
}

// TestConflictRepairedByTrackerMerge: in a repository whose git has no
// merge driver, two branches edit different fields of one issue and git's
// text merge leaves conflict markers in its record file. The next command
// repairs the file with the tracker's own three-way merge, byte for byte
// what the merge driver makes of git's three versions, stages it, and
// both branches' edits survive; no record is lost.
func TestConflictRepairedByTrackerMerge(t *testing.T) {
	p, git, id, file := conflictedRepo(t, "merge")
	// What the tracker's merge driver makes of git's three versions.
	stages := t.TempDir()
	var sides []string
	for _, stage := range []string{"1", "2", "3"} {
		f := filepath.Join(stages, stage)
		content, err := testkit.GitCmd(p.root, "show", ":"+stage+":"+file).Output()
		if err != nil {
			t.Fatalf("git show :%s:%s: %v", stage, file, err)
		}
		if err := os.WriteFile(f, content, 0o644); err != nil {
			t.Fatal(err)
		}
		sides = append(sides, f)
	}
	p.ok(append([]string{"merge-driver"}, append(sides, file)...)...)
	want, err := os.ReadFile(sides[1])
	if err != nil {
		t.Fatal(err)
	}

	r := p.run("issue", "show", id, "--json")
	if r.code != 0 {
		t.Fatalf("issue show after the conflict: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "repaired the merge conflict in "+file) || !strings.Contains(r.stderr, "staged") {
		t.Errorf("stderr %q; want it to say which file it repaired, and that it is staged", r.stderr)
	}
	got, err := os.ReadFile(filepath.Join(p.root, file))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("repaired file (%v):\n%s\nwant the merge driver's result:\n%s", err, got, want)
	}
	s := p.js("issue", "show", id)
	if s.num("priority") != 0 || s.str("assignee") != "bob" {
		t.Errorf("both branches' edits should survive: priority %d, assignee %q", s.num("priority"), s.str("assignee"))
	}
	if n := p.js("issue", "list", "--all").num("total"); n != 2 {
		t.Errorf("%d issues after the repair, want 2", n)
	}
	if u := git("diff", "--name-only", "--diff-filter=U"); u != "" {
		t.Errorf("still unmerged after the repair: %q", u)
	}
	git("commit", "-qm", "merge left")
}

// TestCommittedConflictRepairedFromHistory: conflict markers that reached
// a merge commit (git no longer holds the three versions in its index)
// are repaired from the versions that merge joined: its parents and their
// merge base. Both edits survive, as the driver would have kept them.
func TestCommittedConflictRepairedFromHistory(t *testing.T) {
	p, git, id, _ := conflictedRepo(t, "merge")
	git("commit", "-qam", "merge with the markers left in")

	r := p.run("issue", "show", id, "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "repaired the merge conflict") || strings.Contains(r.stderr, "staged") {
		t.Fatalf("exit %d, stderr %q; want a repair, not staged", r.code, r.stderr)
	}
	s := p.js("issue", "show", id)
	if s.num("priority") != 0 || s.str("assignee") != "bob" {
		t.Errorf("both sides' edits should survive: priority %d, assignee %q", s.num("priority"), s.str("assignee"))
	}
}

// TestConflictMarkedResolvedRepairedFromMarkers: a conflicted file marked
// resolved with its markers still in it (git add) is repaired from the
// sides the markers enclose; with git's diff3 style, which shows the base,
// both edits survive.
func TestConflictMarkedResolvedRepairedFromMarkers(t *testing.T) {
	p, git, id, file := conflictedRepo(t, "diff3")
	git("add", file)

	r := p.run("issue", "show", id, "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "repaired the merge conflict") || strings.Contains(r.stderr, "staged") {
		t.Fatalf("exit %d, stderr %q; want a repair from the markers, not staged", r.code, r.stderr)
	}
	s := p.js("issue", "show", id)
	if s.num("priority") != 0 || s.str("assignee") != "bob" {
		t.Errorf("both sides' edits should survive: priority %d, assignee %q", s.num("priority"), s.str("assignee"))
	}
}

// TestDoctor: doctor reports the missing driver and a conflicted file
// without changing anything (exit 4); --fix registers the driver and
// repairs the file, keeping both branches' edits.
func TestDoctor(t *testing.T) {
	p, git, id, file := conflictedRepo(t, "merge")
	marked, _ := os.ReadFile(filepath.Join(p.root, file))
	rel := strings.TrimPrefix(file, ".sudocode/")

	r := p.run("doctor", "--json")
	if r.code != 4 {
		t.Fatalf("doctor: exit %d, stderr %q; want 4", r.code, r.stderr)
	}
	var rep struct {
		MergeDriver string   `json:"merge_driver"`
		Conflicts   []string `json:"conflicts"`
		Repaired    []struct {
			File, From string
			Staged     bool
		} `json:"repaired"`
		Healthy bool `json:"healthy"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if rep.MergeDriver != "missing" || len(rep.Conflicts) != 1 || rep.Conflicts[0] != rel || rep.Healthy {
		t.Errorf("doctor: %+v", rep)
	}
	if now, _ := os.ReadFile(filepath.Join(p.root, file)); !bytes.Equal(now, marked) {
		t.Error("doctor without --fix changed the file")
	}
	if k := strings.Join(objKeys(t, []byte(r.stdout)), ","); k != "merge_driver,conflicts,repaired,healthy" {
		t.Errorf("doctor --json keys: %s", k)
	}

	r = p.run("doctor", "--fix", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "registered the tracker's merge driver") {
		t.Fatalf("doctor --fix: exit %d, stderr %q", r.code, r.stderr)
	}
	rep.Conflicts = nil
	var raw struct {
		Repaired []json.RawMessage `json:"repaired"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || json.Unmarshal([]byte(r.stdout), &raw) != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(raw.Repaired) != 1 {
		t.Fatalf("doctor --fix repaired %d files, want 1: %s", len(raw.Repaired), r.stdout)
	}
	if k := strings.Join(objKeys(t, raw.Repaired[0]), ","); k != "file,staged,from,renamed" {
		t.Errorf("doctor --json repaired keys: %s", k)
	}
	if rep.MergeDriver != "registered" || len(rep.Conflicts) != 0 || !rep.Healthy ||
		len(rep.Repaired) != 1 || rep.Repaired[0].File != rel || rep.Repaired[0].From != "index" || !rep.Repaired[0].Staged {
		t.Errorf("doctor --fix: %s", r.stdout)
	}
	s := p.js("issue", "show", id)
	if s.num("priority") != 0 || s.str("assignee") != "bob" {
		t.Errorf("both branches' edits should survive: priority %d, assignee %q", s.num("priority"), s.str("assignee"))
	}
	if out := p.human("doctor"); !strings.Contains(out, "ok") {
		t.Errorf("doctor after the fix: %q", out)
	}
	git("commit", "-qm", "merge left")
}

// conflictedRepo is a repository whose git has no merge driver for the
// tracker, in the middle of a merge of two branches that edited one issue
// (id): the left set its priority to 0, main assigned it to bob, and git's
// text merge, in the given conflict style, left markers in its record
// file (file, from the repository's root).
func conflictedRepo(t *testing.T, style string) (p *proj, git func(...string) string, id, file string) {
	t.Helper()
	p, git = newGitProj(t)
	id = p.js("issue", "create", "Edited on both branches").str("id")
	p.ok("issue", "create", "Untouched")
	git("add", "-A")
	git("commit", "-qm", "base")
	git("config", "--remove-section", "merge.sudocode") // as in a clone whose git never ran a tracker command
	git("config", "merge.conflictStyle", style)

	git("checkout", "-qb", "left")
	p.ok("issue", "update", id, "--priority", "0")
	git("commit", "-qam", "left")
	git("checkout", "-q", "main")
	p.ok("issue", "update", id, "--assignee", "bob")
	git("commit", "-qam", "right")

	out, merged := gitMay(t, p, p.root, "merge", "--no-edit", "left")
	if merged || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("want git's text merge to conflict:\n%s", out)
	}
	file = git("diff", "--name-only", "--diff-filter=U")
	if !strings.HasPrefix(file, ".sudocode/records/issues/") || strings.Contains(file, "\n") {
		t.Fatalf("conflicted files: %q", file)
	}
	raw, err := os.ReadFile(filepath.Join(p.root, file))
	if err != nil || !bytes.Contains(raw, []byte("<<<<<<<")) {
		t.Fatalf("%s has no conflict markers (%v):\n%s", file, err, raw)
	}
	return p, git, id, file
}
