package store

import (
	"context"
	"os"
	"slices"

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

// Export writes the tracker's canonical files and spec bodies into dir,
// which can be another clone's .sudocode, a backup, or the input of an
// import elsewhere. The record files there are replaced: shard files of
// dir that this tracker does not have, and first-layout files, are removed.
func (r *Repo) Export(ctx context.Context, dir string) (Transfer, error) {
	out := Transfer{Dir: dir, Renamed: []merge.Rename{}}
	err := r.Update(ctx, func(t *Tx) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fault.Wrap(fault.Unavailable, err, "cannot write the export")
		}
		dst, err := openRecords(dir)
		if err != nil {
			return err
		}
		defer dst.Close()
		present, err := dst.stats()
		if err != nil {
			return err
		}
		for _, k := range tracker.RecordKinds {
			data, err := t.dumpKind(k)
			if err != nil {
				return err
			}
			if err := writeKind(dst, present, k, data); err != nil {
				return err
			}
			if err := dst.remove(k.LegacyFile()); err != nil {
				return err
			}
		}
		if err := t.exportActivity(dst); err != nil {
			return err
		}
		return t.exportBodies(dir)
	})
	if err == nil {
		err = r.countInto(ctx, &out)
	}
	return out, err
}

func (t *Tx) exportBodies(dir string) error {
	paths, err := t.ids(`SELECT file_path FROM specs ORDER BY file_path`)
	if err != nil {
		return err
	}
	src, err := openBodies(t.r.Dir)
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
	return nil
}

// Import merges the files of an export (or another clone's .sudocode) in
// dir into this tracker: records match on uuid (feedback on id), the later
// edit of a field wins, lists are united, nothing is deleted; an incoming
// id that collides with a different record here is renamed. A spec body is
// copied when the spec is new here or the incoming record won. Every input
// file is checked before anything changes. dir may hold either layout.
func (r *Repo) Import(ctx context.Context, dir string) (Transfer, error) {
	out := Transfer{Dir: dir, Renamed: []merge.Rename{}}
	err := r.Update(ctx, func(t *Tx) error {
		src, err := openRecords(dir)
		if err != nil {
			return err
		}
		defer src.Close()
		present, err := src.stats()
		if err != nil {
			return err
		}
		legacy := src.legacy()
		merged := map[tracker.RecordKind][]byte{}
		incomingSpecs := []byte{}
		for _, k := range tracker.RecordKinds {
			var inputs [][]byte
			if slices.Contains(legacy, k) {
				data, err := src.read(k.LegacyFile())
				if err != nil {
					return err
				}
				inputs = append(inputs, data)
			}
			if shards := shardsOf(present, k); len(shards) > 0 {
				data, err := readKind(src, present, k)
				if err != nil {
					return err
				}
				inputs = append(inputs, data)
			}
			if len(inputs) == 0 {
				continue
			}
			current, err := t.dumpKind(k)
			if err != nil {
				return err
			}
			for _, in := range inputs {
				data, renames, err := merge.TwoWay(k, current, in)
				if err != nil {
					return fault.New(fault.Invalid, "cannot import the %s of %s: %v", k.Dir(), dir, err).
						WithHint("fix the file; nothing was imported")
				}
				current = data
				out.Renamed = append(out.Renamed, renames...)
				if k == tracker.SpecRecords {
					incomingSpecs = append(incomingSpecs, in...)
				}
			}
			merged[k] = current
		}
		activity, err := t.planActivityImport(src, dir)
		if err != nil {
			return err
		}
		if data, ok := merged[tracker.SpecRecords]; ok {
			if err := t.importBodies(dir, incomingSpecs, data); err != nil {
				return err
			}
		}
		here, err := t.rs.stats()
		if err != nil {
			return err
		}
		for _, k := range tracker.RecordKinds {
			if data, ok := merged[k]; ok {
				if err := writeKind(t.rs, here, k, data); err != nil {
					return err
				}
			}
		}
		if err := t.writeActivity(activity); err != nil {
			return err
		}
		if err := t.rebuild(); err != nil {
			return err
		}
		t.rebuilt = true
		return nil
	})
	if err == nil {
		err = r.countInto(ctx, &out)
	}
	return out, err
}

// importBodies copies incoming spec bodies whose record the merge took
// from the import (its updated_at is the incoming one) or that are missing here.
func (t *Tx) importBodies(dir string, incomingSpecs, mergedSpecs []byte) error {
	incoming, err := parseSpecs("the imported specs", incomingSpecs)
	if err != nil {
		return err
	}
	// Two valid files can merge into one where two specs share a body.
	merged, err := parseSpecs("the merged specs", mergedSpecs)
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

// countInto counts the records of the tracker into out.
func (r *Repo) countInto(ctx context.Context, out *Transfer) error {
	for _, c := range []struct {
		n     *int
		table string
	}{{&out.Issues, "issues"}, {&out.Specs, "specs"}, {&out.Feedback, "feedback"}} {
		if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM `+c.table).Scan(c.n); err != nil {
			return cacheErr(err)
		}
	}
	return nil
}
