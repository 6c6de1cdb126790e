package store

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// records reads and writes the shard files of one tracker directory (see
// tracker.ShardFile) through an os.Root of it: the files come from git, and
// a shard or a records directory that is a link out of the tracker must
// not be read or written through. Only regular files are read (a FIFO
// would hang the command).
type records struct {
	root *os.Root
}

func openRecords(dir string) (*records, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot open the tracker directory")
	}
	return &records{root: root}, nil
}

func (rs *records) Close() { rs.root.Close() }

// stats returns every shard file present, path → its stat (see statOf).
func (rs *records) stats() (map[string]string, error) {
	var s shardStats
	if err := rs.scan(&s); err != nil {
		return nil, err
	}
	return s.files(), nil
}

// shardsOf lists the shard files of kind k present, in order.
func shardsOf(stats map[string]string, k tracker.RecordKind) []string {
	var out []string
	for p := range stats {
		if kind, _ := tracker.KindOfFile(p); kind == k {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// read returns file p's content (p relative to the tracker directory); an
// absent file reads as nil.
func (rs *records) read(p string) ([]byte, error) {
	fi, err := rs.root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+p)
	}
	if !fi.Mode().IsRegular() {
		return nil, fault.New(fault.Invalid, "%s is not a regular file", p).
			WithHint("the tracker's record files are plain files; remove it (git checkout restores a committed one)")
	}
	data, err := rs.root.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+p)
	}
	return data, nil
}

// write replaces file p with what fill writes, atomically.
func (rs *records) write(p string, fill func(*os.File) error) error {
	if err := rs.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	if err := writeAtomicAt(rs.root, p, fill); err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot write "+p)
	}
	return nil
}

func (rs *records) writeBytes(p string, data []byte) error {
	return rs.write(p, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// remove deletes file p; an absent file is not an error.
func (rs *records) remove(p string) error {
	if err := rs.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fault.Wrap(fault.Unavailable, err, "cannot remove "+p)
	}
	return nil
}

// stat is file p's stat, "absent" when it is not there.
func (rs *records) stat(p string) string {
	fi, err := rs.root.Lstat(p)
	if err != nil {
		return "absent"
	}
	return statOf(fi)
}

// legacy lists the kinds whose first-layout file (issues.jsonl, …) is
// still there: the tracker moves them into shards (migrate.go).
func (rs *records) legacy() []tracker.RecordKind {
	var out []tracker.RecordKind
	for _, k := range tracker.RecordKinds {
		if _, err := rs.root.Lstat(k.LegacyFile()); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// Stamp is a text that changes whenever one of the tracker's record files
// (or its config) does: a watcher compares it between two looks.
func Stamp(dir string) string {
	var b strings.Builder
	b.WriteString(fileStat(filepath.Join(dir, ConfigFile)))
	rs, err := openRecords(dir)
	if err != nil {
		return "unreadable"
	}
	defer rs.Close()
	for _, k := range rs.legacy() {
		b.WriteString("|" + k.LegacyFile() + ":" + rs.stat(k.LegacyFile()))
	}
	var s shardStats
	if err := rs.scan(&s); err != nil {
		return "unreadable"
	}
	b.WriteString("|" + s.digest())
	b.WriteString("|" + rs.activityStamp())
	return b.String()
}
