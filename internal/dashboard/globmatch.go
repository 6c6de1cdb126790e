package dashboard

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// Limits of /api/files/matching: a glob lists at most globShown of its
// files (its count goes on), and at most globScanned tracked files are
// read, so that a huge repository answers quickly too.
const (
	globShown   = 50
	globScanned = 200_000
	globTimeout = 10 * time.Second
	globsAsked  = 32 // globs in one question: each is matched against every file read
)

// GlobMatch is what one glob of a ruleset's scope picks in this project.
type GlobMatch struct {
	Glob  string   `json:"glob"`
	Files []string `json:"files"` // the first globShown, in git's order
	Total int      `json:"total"` // every match among the files read
}

// GlobMatches is /api/files/matching?glob=G&glob=…: the project's tracked
// files each glob picks, as a ruleset's scope matches them (rulesets.MatchGlob,
// paths from the repository's root).
type GlobMatches struct {
	Matches []GlobMatch `json:"matches"`
	Scanned int         `json:"scanned"` // the tracked files read
	// Partial: the project has more than globScanned tracked files; the
	// rest were not read.
	Partial bool `json:"partial"`
}

// globMatches lists the files through `git ls-files`, run by gitx (the
// project's hardened, sandboxed git) in the project's directory: only
// its tracked files are candidates, so no glob reaches outside it (a
// ../ never matches a path git lists), and no shell is involved.
func (d *Dashboard) globMatches(w http.ResponseWriter, r *http.Request) {
	globs := r.URL.Query()["glob"]
	if len(globs) == 0 {
		fail(w, fault.New(fault.Invalid, "no glob").WithHint("ask with ?glob=**/*.go, once per glob"))
		return
	}
	if len(globs) > globsAsked {
		fail(w, fault.New(fault.Invalid, "%d globs: at most %d at once", len(globs), globsAsked))
		return
	}
	if err := rulesets.ValidateGlobs(globs); err != nil {
		fail(w, err)
		return
	}
	out := GlobMatches{Matches: make([]GlobMatch, len(globs))}
	for i, g := range globs {
		out.Matches[i] = GlobMatch{Glob: g, Files: []string{}}
	}
	err := gitx.Run(r.Context(), gitx.Options{Dir: d.opts.Dir, Timeout: globTimeout}, func(br *bufio.Reader) error {
		for {
			p, err := br.ReadBytes(0)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if out.Scanned == globScanned {
				out.Partial = true
				return gitx.ErrEnough
			}
			out.Scanned++
			tally(out.Matches, string(bytes.TrimSuffix(p, []byte{0})))
		}
	}, "ls-files", "-z", "--full-name")
	if err != nil {
		fail(w, fault.Wrap(fault.Unavailable, err, "cannot list the project's files with git").
			WithHint("the project must be a git work tree with git installed"))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// tally counts file p for every glob that picks it.
func tally(ms []GlobMatch, p string) {
	for i := range ms {
		if !rulesets.MatchGlob(ms[i].Glob, p) {
			continue
		}
		ms[i].Total++
		if len(ms[i].Files) < globShown {
			ms[i].Files = append(ms[i].Files, p)
		}
	}
}
