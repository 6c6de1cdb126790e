package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
)

// gitRepo is a scratch repository whose merge driver for *.jsonl is this
// test binary (see TestMain).
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := &gitRepo{t: t, dir: t.TempDir(), env: append(os.Environ(), driverEnv+"=1")} // inherited by the driver git runs
	g.run("init", "-q", "-b", "main")
	g.run("config", "merge.sudocode.name", "sudocode JSONL merge")
	g.run("config", "merge.sudocode.driver", shellQuote(exe)+" %O %A %B %P")
	g.write(".sudocode/.gitattributes", []byte("*.jsonl merge=sudocode\n")) // as init writes it
	return g
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// run runs git and returns its output, trimmed; it fails the test on
// error.
func (g *gitRepo) run(args ...string) string {
	g.t.Helper()
	return testkit.GitWith(g.t, g.env, g.dir, args...)
}

// try runs git that may fail (a merge that conflicts) and returns its
// output and error.
func (g *gitRepo) try(args ...string) (string, error) {
	cmd := testkit.GitCmd(g.dir, args...)
	cmd.Env = testkit.GitEnv(g.env)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (g *gitRepo) write(name string, data []byte) {
	g.t.Helper()
	p := filepath.Join(g.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gitRepo) read(name string) []byte {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(g.dir, name))
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

func (g *gitRepo) commitIssues(msg string, recs ...tracker.IssueRecord) {
	g.t.Helper()
	g.write(".sudocode/issues.jsonl", encodeIssues(recs))
	g.run("add", "-A")
	g.run("commit", "-q", "-m", msg)
}

// TestGitMergeDriver merges two branches that both changed issues.jsonl
// with real git and the driver configured as a user would.
func TestGitMergeDriver(t *testing.T) {
	g := newGitRepo(t)
	const (
		ua  = "aaaaaaaa-1111-4111-8111-000000000001"
		ub  = "bbbbbbbb-1111-4111-8111-000000000002"
		ue  = "eeeeeeee-1111-4111-8111-000000000003"
		uc  = "cccccccc-1111-4111-8111-000000000004"
		ud  = "dddddddd-1111-4111-8111-000000000005"
		uxm = "0a0a0a0a-1111-4111-8111-000000000006" // main's sudocode-x1y2
		uxf = "f00dcafe-1111-4111-8111-000000000007" // feature's sudocode-x1y2
		uy  = "99999999-1111-4111-8111-000000000008"
	)
	A := issue("sudocode-aaaa", ua, "A", 0)
	A.Tags = []string{"base"}
	B := issue("sudocode-bbbb", ub, "B", 0)
	E := issue("sudocode-eeee", ue, "E", 0)
	g.commitIssues("base", A, B, E)

	// feature: edits A's title, adds C (blocks A), its own sudocode-x1y2 and
	// Y under it; deletes B (which main leaves alone) and E (which main
	// edits).
	g.run("checkout", "-q", "-b", "feature")
	fA := with(A, func(r *tracker.IssueRecord) {
		r.Title, r.Tags, r.UpdatedAt = "A, retitled on feature", []string{"base", "feature"}, at(20)
	})
	C := with(issue("sudocode-cccc", uc, "C", 20), func(r *tracker.IssueRecord) {
		r.Relationships = []tracker.Relationship{rel("sudocode-cccc", A.ID, tracker.RelBlocks, 20, "feature")}
	})
	xf := issue("sudocode-x1y2", uxf, "X from feature", 20)
	Y := with(issue("sudocode-yyyy", uy, "Y, child of feature's X", 20), func(r *tracker.IssueRecord) {
		r.ParentID = new("sudocode-x1y2")
		r.Relationships = []tracker.Relationship{rel("sudocode-yyyy", "sudocode-x1y2", tracker.RelDependsOn, 20, "feature")}
	})
	g.commitIssues("feature work", fA, C, xf, Y)

	// main: raises A's priority (earlier), adds D and its own sudocode-x1y2,
	// edits E.
	g.run("checkout", "-q", "main")
	mA := with(A, func(r *tracker.IssueRecord) {
		r.Priority, r.Tags, r.UpdatedAt = 0, []string{"base", "main"}, at(10)
	})
	D := issue("sudocode-dddd", ud, "D", 10)
	xm := issue("sudocode-x1y2", uxm, "X from main", 10)
	mE := with(E, func(r *tracker.IssueRecord) { r.Status, r.UpdatedAt = tracker.IssueInProgress, at(10) })
	g.commitIssues("main work", mA, B, mE, D, xm)

	out, err := g.try("merge", "--no-edit", "feature")
	if err != nil {
		t.Fatalf("git merge failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "renamed sudocode-x1y2 to sudocode-x1y2f") {
		t.Errorf("the driver's rename warning is missing from git's output:\n%s", out)
	}
	if u := g.run("ls-files", "-u"); u != "" {
		t.Fatalf("git reports unmerged paths:\n%s", u)
	}
	if st := g.run("status", "--porcelain"); st != "" {
		t.Fatalf("work tree not clean after the merge:\n%s", st)
	}

	got := g.read(".sudocode/issues.jsonl")
	if bytes.Contains(got, []byte("<<<<<<<")) {
		t.Fatalf("conflict markers in the result:\n%s", got)
	}
	wantA := with(A, func(r *tracker.IssueRecord) {
		r.Title, r.Priority, r.Tags, r.UpdatedAt = fA.Title, 0, []string{"base", "feature", "main"}, at(20)
	})
	wantXf := with(xf, func(r *tracker.IssueRecord) { r.ID = "sudocode-x1y2f" })
	wantY := with(Y, func(r *tracker.IssueRecord) {
		r.ParentID = new("sudocode-x1y2f")
		r.Relationships[0].To = "sudocode-x1y2f"
	})
	want := encodeIssues([]tracker.IssueRecord{wantA, C, D, mE, xm, wantXf, wantY})
	if !bytes.Equal(got, want) {
		t.Fatalf("merged issues.jsonl differs at %s\ngot:\n%s", diffLines(got, want), got)
	}
	recs, err := tracker.ParseIssues(got, nil) // also proves no uuid or id appears twice
	if err != nil || len(recs) != 7 {
		t.Fatalf("result: %d records, %v", len(recs), err)
	}
	if log := g.run("log", "--format=%s", "-1"); !strings.HasPrefix(log, "Merge branch 'feature'") {
		t.Errorf("no merge commit: %q", log)
	}

	// Merging the other way round, from feature, gives the same records,
	// with main's sudocode-x1y2 renamed this time.
	g.run("checkout", "-q", "feature")
	g.run("reset", "-q", "--hard", "main^2")
	out, err = g.try("merge", "--no-edit", "main^1")
	if err != nil {
		t.Fatalf("reverse merge failed: %v\n%s", err, out)
	}
	rev, err := tracker.ParseIssues(g.read(".sudocode/issues.jsonl"), nil)
	if err != nil || len(rev) != 7 {
		t.Fatalf("reverse result: %d records, %v", len(rev), err)
	}
	for _, r := range rev {
		if r.UUID == uxm && r.ID != "sudocode-x1y20" || r.UUID == uxf && r.ID != "sudocode-x1y2" {
			t.Errorf("reverse merge: %s has id %s", r.UUID, r.ID)
		}
	}
}

// TestGitMergeDriverRefusesMalformedInput: a malformed side makes the
// driver fail, so git reports a conflict and no merged file is written.
func TestGitMergeDriverRefusesMalformedInput(t *testing.T) {
	g := newGitRepo(t)
	A := issue("sudocode-aaaa", "aaaaaaaa-2222-4222-8222-000000000001", "A", 0)
	g.commitIssues("base", A)
	g.run("checkout", "-q", "-b", "feature")
	g.write(".sudocode/issues.jsonl", append(encodeIssues([]tracker.IssueRecord{A}), "{broken\n"...))
	g.run("commit", "-q", "-am", "broken")
	g.run("checkout", "-q", "main")
	mine := encodeIssues([]tracker.IssueRecord{with(A, func(r *tracker.IssueRecord) { r.Title = "A2"; r.UpdatedAt = at(1) })})
	g.write(".sudocode/issues.jsonl", mine)
	g.run("commit", "-q", "-am", "edit")

	out, err := g.try("merge", "--no-edit", "feature")
	if err == nil {
		t.Fatalf("git merge succeeded over a malformed file:\n%s", out)
	}
	if !strings.Contains(out, "issues.jsonl line 2") || !strings.Contains(out, "CONFLICT") {
		t.Errorf("git output does not report the bad line and a conflict:\n%s", out)
	}
	if u := g.run("ls-files", "-u"); !strings.Contains(u, ".sudocode/issues.jsonl") {
		t.Errorf("issues.jsonl is not unmerged:\n%s", u)
	}
	if got := g.read(".sudocode/issues.jsonl"); !bytes.Equal(got, mine) {
		t.Errorf("the driver wrote a partial result:\n%s", got)
	}
}
