package search

import (
	"context"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// The walk does not wait for git's list of ignored paths; whenever the
// list comes — before the walk, while it is inside an ignored directory,
// or after every file was handed out — git-ignored files are neither
// returned nor counted.
func TestSearchIgnoredWhenGitAnswersLate(t *testing.T) {
	r := twRoot(t, map[string]string{
		"a.log":              "needle\n", // ignored, first in path order
		"logs/a.txt":         "needle\n", // in an ignored directory
		"logs/deep/b.txt":    "needle\n",
		"logs/deep/c/d.txt":  "needle\n",
		"sub/ignored.log":    "needle\n",
		"sub/real.txt":       "needle in sub\n",
		"text.txt":           "needle\n",
		"tracked.log":        "needle\n",
		".gitignore":         "*.log\nlogs/\n",
		"zz/later/ok.txt":    "needle\n",
		"zz/later/skip.log":  "needle\n",
		"zz/logs/nested.txt": "needle\n",
	})
	testkit.Git(t, r.Path, "init", "-q")
	testkit.Git(t, r.Path, "add", "-f", "tracked.log")
	want := []string{"sub/real.txt:1:1", "text.txt:1:1", "tracked.log:1:1", "zz/later/ok.txt:1:1"}
	for _, c := range []struct {
		name    string
		release func(gate chan struct{}) // lets git's answer out
		enters  string                   // a directory the walk must enter before the answer
	}{
		{"at its own pace", func(gate chan struct{}) { close(gate) }, ""},
		{"inside an ignored directory", nil, "logs"},
		{"after the walk", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			gate := make(chan struct{})
			wstest.Set(t, &visibilityOf, func(ctx context.Context, r *workspace.Root, base string, h, i, g bool, w *[]string) (*workspace.Visibility, error) {
				<-gate
				return workspace.NewVisibility(ctx, r, base, h, i, g, w)
			})
			entered := false
			wstest.Set(t, &walkEntered, func(rel string, lv *lateVisibility) {
				if c.enters != "" && rel == c.enters && !entered {
					entered = true
					close(gate)
					lv.wait()
				}
			})
			released := c.release != nil || c.enters != ""
			wstest.Set(t, &walkDispatched, func() {
				if !released {
					released = true
					close(gate)
				}
			})
			if c.release != nil {
				c.release(gate)
			}
			res, ms := twSearch(t, r, Options{Query: "needle"})
			got := hits(ms)
			slices.Sort(got)
			wstest.WantPaths(t, got, want)
			wstest.Want(t, res, map[string]any{"total_matches": int64(len(want)), "truncated": false})
			if c.enters != "" && !entered {
				t.Fatalf("the walk never entered %s before git answered: the test proves nothing", c.enters)
			}
		})
	}
}

// git failing to list the ignored paths fails the search with its error,
// though the walk had started.
func TestSearchFailsWithGitsError(t *testing.T) {
	r := twRoot(t, map[string]string{"a.txt": "needle\n"})
	failure := workspace.Errorf(workspace.CodeTimeout, nil, "git took too long")
	wstest.Set(t, &visibilityOf, func(context.Context, *workspace.Root, string, bool, bool, bool, *[]string) (*workspace.Visibility, error) {
		return nil, failure
	})
	if _, err := Text(context.Background(), r, Options{Query: "needle"}); err != failure {
		t.Fatalf("error %v, want git's", err)
	}
}
