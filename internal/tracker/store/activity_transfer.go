package store

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/merge"
)

// Export and import carry the activity shards too: export copies them as
// they are (append-only, their bytes are the records), import merges each
// into the tracker's as the merge driver would (the union of both).

// activityShards lists the activity shard files of a tracker directory,
// as paths relative to it, in order.
func (rs *records) activityShards() ([]string, error) {
	dir := path.Join(tracker.RecordsDir, tracker.ActivityDir)
	d, err := rs.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+dir)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+dir)
	}
	var out []string
	for _, n := range names {
		if _, ok := tracker.ShardOfFileName(n); ok {
			out = append(out, path.Join(dir, n))
		}
	}
	slices.Sort(out)
	return out, nil
}

// exportActivity copies the tracker's activity shards to dst; a shard dst
// has that the tracker lacks is emptied (shard files are never removed).
func (t *Tx) exportActivity(dst *records) error {
	mine, err := t.rs.activityShards()
	if err != nil {
		return err
	}
	theirs, err := dst.activityShards()
	if err != nil {
		return err
	}
	for _, p := range theirs {
		if !slices.Contains(mine, p) {
			if err := dst.writeBytes(p, nil); err != nil {
				return err
			}
		}
	}
	for _, p := range mine {
		data, err := t.rs.read(p)
		if err != nil {
			return err
		}
		if err := dst.writeBytes(p, data); err != nil {
			return err
		}
	}
	return nil
}

// planActivityImport merges src's activity shards into the tracker's, in
// memory: the shards that change, with their new content. A malformed
// shard on either side refuses the import before anything is written.
func (t *Tx) planActivityImport(src *records, dir string) (map[string][]byte, error) {
	incoming, err := src.activityShards()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, p := range incoming {
		in, err := src.read(p)
		if err != nil {
			return nil, err
		}
		cur, err := t.rs.read(p)
		if err != nil {
			return nil, err
		}
		merged, _, err := merge.TwoWay(tracker.ActivityRecords, cur, in)
		if err != nil {
			return nil, fault.New(fault.Invalid, "cannot import the activity of %s (%s): %v", dir, p, err).
				WithHint("fix the file; nothing was imported")
		}
		if !bytes.Equal(merged, cur) {
			out[p] = merged
		}
	}
	return out, nil
}

// writeActivity replaces the activity shards an import changed.
func (t *Tx) writeActivity(files map[string][]byte) error {
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := t.rs.writeBytes(p, files[p]); err != nil {
			return err
		}
	}
	return nil
}
