package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/merge"
)

// Transfer is the result of an export or an import.
type Transfer struct {
	Dir      string         `json:"dir"`
	Issues   int            `json:"issues"`
	Specs    int            `json:"specs"`
	Feedback int            `json:"feedback"`
	Renamed  []merge.Rename `json:"renamed"` // ids changed on import because they collided
}

var jsonlFiles = []string{IssuesFile, SpecsFile, FeedbackFile}

// Export writes the tracker's canonical files and spec bodies into dir,
// which can be another clone's .sudocode, a backup, or the input of an
// import elsewhere.
func (r *Repo) Export(ctx context.Context, dir string) (Transfer, error) {
	out := Transfer{Dir: dir, Renamed: []merge.Rename{}}
	err := r.Update(ctx, func(t *Tx) error {
		for _, f := range jsonlFiles {
			data, err := t.dump(f)
			if err != nil {
				return err
			}
			if err := writeAtomic(filepath.Join(dir, f), data); err != nil {
				return fault.Wrap(fault.Unavailable, err, "cannot write the export")
			}
		}
		paths, err := t.ids(`SELECT file_path FROM specs ORDER BY file_path`)
		if err != nil {
			return err
		}
		src, err := openBodies(r.Dir)
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := openBodies(dir)
		if err != nil {
			return err
		}
		defer dst.Close()
		for _, p := range paths {
			body, err := src.read(p)
			if err != nil {
				return err
			}
			if err := dst.write(p, body); err != nil {
				return err
			}
		}
		return t.counts(&out)
	})
	return out, err
}

// Import merges the files of an export (or another clone's .sudocode) in
// dir into this tracker: records match on uuid (feedback on id), the later
// edit of a field wins, lists are united, nothing is deleted; an incoming
// id that collides with a different record here is renamed. A spec body is
// copied when the spec is new here or the incoming record won. Every input
// file is checked before anything changes.
func (r *Repo) Import(ctx context.Context, dir string) (Transfer, error) {
	out := Transfer{Dir: dir, Renamed: []merge.Rename{}}
	err := r.Update(ctx, func(t *Tx) error {
		merged := map[string][]byte{}
		for _, f := range jsonlFiles {
			incoming, err := os.ReadFile(filepath.Join(dir, f))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return fault.Wrap(fault.Unavailable, err, "cannot read "+f)
			}
			current, err := t.dump(f)
			if err != nil {
				return err
			}
			kind, _ := merge.KindOf(f)
			data, renames, err := merge.TwoWay(kind, current, incoming)
			if err != nil {
				return fault.New(fault.Invalid, "cannot import %s: %v", filepath.Join(dir, f), err).
					WithHint("fix the file; nothing was imported")
			}
			merged[f] = data
			out.Renamed = append(out.Renamed, renames...)
		}
		if err := t.importBodies(dir, merged[SpecsFile]); err != nil {
			return err
		}
		for _, f := range jsonlFiles {
			if data, ok := merged[f]; ok {
				if err := writeAtomic(filepath.Join(r.Dir, f), data); err != nil {
					return fault.Wrap(fault.Unavailable, err, "cannot write "+f)
				}
			}
		}
		if err := t.rebuild(); err != nil {
			return err
		}
		t.rebuilt = true
		return t.counts(&out)
	})
	return out, err
}

// importBodies copies incoming spec bodies whose record the merge took
// from the import (its updated_at is the incoming one) or that are missing here.
func (t *Tx) importBodies(dir string, mergedSpecs []byte) error {
	if mergedSpecs == nil {
		return nil
	}
	data, err := readTracked(filepath.Join(dir, SpecsFile))
	if err != nil {
		return err
	}
	incoming, err := parseSpecs("", data)
	if err != nil {
		return err
	}
	// Two valid files can merge into one where two specs share a body.
	merged, err := parseSpecs("the merged ", mergedSpecs)
	if err != nil {
		return err
	}
	won := map[string]bool{}
	for _, s := range merged {
		won[s.UUID+s.UpdatedAt.String()] = true
	}
	src, err := openBodies(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openBodies(t.r.Dir)
	if err != nil {
		return err
	}
	defer dst.Close()
	for _, in := range incoming {
		there, err := dst.exists(in.FilePath)
		if err != nil {
			return err
		}
		if !won[in.UUID+in.UpdatedAt.String()] && there {
			continue
		}
		body, err := src.read(in.FilePath)
		if err != nil {
			return err
		}
		if body == nil {
			continue // an export without bodies: keep what is here
		}
		if err := t.refuseForeignBody(in, there); err != nil {
			return err
		}
		if err := dst.write(in.FilePath, body); err != nil {
			return err
		}
	}
	return nil
}

// refuseForeignBody refuses to import spec in's body over a file here
// that is not already that spec's body: a record may name any markdown
// file of the project, and an import must not replace a document with it.
func (t *Tx) refuseForeignBody(in tracker.SpecRecord, there bool) error {
	if !there {
		return nil
	}
	own, err := t.ids(`SELECT file_path FROM specs WHERE uuid = ?`, in.UUID)
	if err != nil {
		return err
	}
	if len(own) == 1 && own[0] == in.FilePath {
		return nil
	}
	return fault.New(fault.Invalid, "cannot import the body of %s: .sudocode/%s already exists here and is not that spec's body", in.ID, in.FilePath).
		WithHint("move the file here aside, or give the spec another file_path in the import; nothing was imported")
}

func (t *Tx) counts(out *Transfer) error {
	for _, c := range []struct {
		n     *int
		table string
	}{{&out.Issues, "issues"}, {&out.Specs, "specs"}, {&out.Feedback, "feedback"}} {
		if err := t.q.QueryRowContext(t.ctx, `SELECT count(*) FROM `+c.table).Scan(c.n); err != nil {
			return cacheErr(err)
		}
	}
	return nil
}
