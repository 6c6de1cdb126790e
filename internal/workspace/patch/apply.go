package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// fileState is one touched path: what it was before the patch and what it
// becomes, computed in memory (phase 2).
type fileState struct {
	rel string

	exists bool // a regular file was there before the patch
	orig   []byte
	mode   fs.FileMode // of the original (when exists)

	finalExists bool
	final       []byte
	finalMode   fs.FileMode
	setMode     bool // chmod the written file to finalMode (updates, moves)

	movedTo string // a move source: its destination
}

// plan is the outcome of phase 2: every resulting file, the result fields.
type plan struct {
	r        *workspace.Root
	files    map[string]*fileState // by key
	order    []string              // keys in first-touch order
	newFiles map[string]bool       // keys of the files this patch creates
	newDirs  map[string]bool       // keys of the directories it creates
	used     map[string]string     // key -> role

	affected []AffectedFile
	summary  []string
	warnings []string
	relaxed  bool
}

// Roles a path plays in a patch, for the overlap rules of
// docs/coding-tools.md#operations.
const (
	roleAdd     = "add"
	roleDelete  = "delete"
	roleUpdate  = "update"
	roleMoveSrc = "move source"
	roleMoveDst = "move destination"
)

const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

func osPath(rel string) string { return filepath.FromSlash(rel) }

func symlinkDenied(rel string) error {
	return workspace.Errorf(workspace.CodeSymlinkEscape, map[string]any{"path": rel},
		"symlink escape denied: %s is a symlink and writing through symlinks is denied", rel)
}

func patchFailed(rel string, line int, format string, args ...any) error {
	d := map[string]any{"path": rel}
	if line > 0 {
		d["line"] = line
	}
	return workspace.Errorf(workspace.CodePatchFailed, d, format, args...)
}

// isNotExist also counts a parent that is not a directory as missing.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// stage validates every operation and computes the resulting files in
// memory (phase 2). It changes nothing on disk.
func stage(r *workspace.Root, ops []*operation) (*plan, error) {
	pl := &plan{r: r, files: map[string]*fileState{}, newFiles: map[string]bool{}, newDirs: map[string]bool{},
		used: map[string]string{}, warnings: []string{}, affected: []AffectedFile{}}
	for _, op := range ops {
		var err error
		switch op.kind {
		case opAdd:
			err = pl.stageAdd(r, op)
		case opDelete:
			err = pl.stageDelete(r, op)
		case opUpdate:
			err = pl.stageUpdate(r, op)
		}
		if err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// key identifies the file a workspace-relative path names: the canonical
// absolute path of its nearest existing parent joined with the rest, so
// that two spellings through a symlinked directory are one file.
func (pl *plan) key(rel string) string {
	abs := filepath.Join(pl.r.Path, osPath(rel))
	dir, rest := filepath.Dir(abs), filepath.Base(abs)
	for {
		if c, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(c, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func (pl *plan) state(rel string) *fileState {
	k := pl.key(rel)
	st, ok := pl.files[k]
	if !ok {
		st = &fileState{rel: rel}
		pl.files[k] = st
		pl.order = append(pl.order, k)
	}
	return st
}

// claim records that rel plays role, refusing any overlap other than
// repeated updates of one file.
func (pl *plan) claim(rel, role string, op *operation) error {
	k := pl.key(rel)
	if prev, ok := pl.used[k]; ok && !(prev == roleUpdate && role == roleUpdate) {
		return patchFailed(rel, op.line, "conflicting operations on %s: the %s at line %d overlaps its earlier use as %s in this patch",
			rel, role, op.line, prev)
	}
	pl.used[k] = role
	return nil
}

// checkNew validates a path that is about to be created (an Add target or a
// move destination): nothing there in any form, parents directories or
// missing, no clash with other paths this patch creates.
func (pl *plan) checkNew(r *workspace.Root, rel string, op *operation, what string, src string) (sameAs bool, err error) {
	fi, err := r.FS.Lstat(osPath(rel))
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return false, symlinkDenied(rel)
	case err == nil && src != "" && fi.Mode().IsRegular():
		if sfi, serr := r.FS.Lstat(osPath(src)); serr == nil && os.SameFile(fi, sfi) {
			return true, nil
		}
		return false, patchFailed(rel, op.line, "cannot move %s over an existing file: %s exists", src, rel)
	case err == nil && fi.IsDir():
		return false, patchFailed(rel, op.line, "cannot %s %s: a directory exists there", what, rel)
	case err == nil:
		if src != "" {
			return false, patchFailed(rel, op.line, "cannot move %s over an existing file: %s exists", src, rel)
		}
		return false, patchFailed(rel, op.line, "cannot add an existing file: %s exists", rel)
	case !isNotExist(err):
		return false, patchFailed(rel, op.line, "cannot %s %s: %v", what, rel, err)
	}
	if pl.newDirs[pl.key(rel)] {
		return false, patchFailed(rel, op.line, "conflicting operations on %s: another file of this patch needs it as a directory", rel)
	}
	// Parents: existing directories, or missing ones created at commit.
	var missing []string
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		fi, err := r.FS.Lstat(osPath(dir))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			fi, err = r.FS.Stat(osPath(dir)) // a link to a directory inside is fine
			if err != nil {
				return false, patchFailed(rel, op.line, "cannot %s %s: its parent %s is a symlink that cannot be resolved", what, rel, dir)
			}
		}
		if err == nil {
			if !fi.IsDir() {
				return false, patchFailed(rel, op.line, "cannot %s %s: its parent %s is a file, not a directory", what, rel, dir)
			}
			continue
		}
		if !isNotExist(err) {
			return false, patchFailed(rel, op.line, "cannot %s %s: %v", what, rel, err)
		}
		if pl.newFiles[pl.key(dir)] {
			return false, patchFailed(rel, op.line, "conflicting operations on %s: this patch also creates %s as a file", rel, dir)
		}
		missing = append(missing, dir)
	}
	for _, d := range missing {
		pl.newDirs[pl.key(d)] = true
	}
	pl.newFiles[pl.key(rel)] = true
	return false, nil
}

// readExisting checks that rel is an existing regular file (not a symlink,
// not a directory) and reads it.
func readExisting(r *workspace.Root, rel, what string, op *operation) ([]byte, fs.FileMode, error) {
	fi, err := r.FS.Lstat(osPath(rel))
	switch {
	case err != nil && isNotExist(err):
		return nil, 0, workspace.Errorf(workspace.CodeNotFound, map[string]any{"path": rel}, "not found: cannot %s %s, it does not exist", what, rel)
	case err != nil:
		return nil, 0, patchFailed(rel, op.line, "cannot %s %s: %v", what, rel, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, 0, symlinkDenied(rel)
	case fi.IsDir():
		return nil, 0, patchFailed(rel, op.line, "cannot %s %s: it is a directory", what, rel)
	case !fi.Mode().IsRegular():
		return nil, 0, patchFailed(rel, op.line, "cannot %s %s: it is not a regular file", what, rel)
	}
	b, err := r.FS.ReadFile(osPath(rel))
	if err != nil {
		return nil, 0, patchFailed(rel, op.line, "cannot read %s: %v", rel, err)
	}
	return b, fi.Mode() & modeBits, nil
}

func (pl *plan) stageAdd(r *workspace.Root, op *operation) error {
	res, err := r.WritableTarget(op.path)
	if err != nil {
		return err
	}
	rel := res.Rel
	if err := pl.claim(rel, roleAdd, op); err != nil {
		return err
	}
	if _, err := pl.checkNew(r, rel, op, "add", ""); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, l := range op.add {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	st := pl.state(rel)
	st.finalExists, st.final, st.finalMode = true, b.Bytes(), 0o666
	pl.affected = append(pl.affected, AffectedFile{Path: rel, Operation: "add"})
	pl.summary = append(pl.summary, "A "+rel)
	return nil
}

func (pl *plan) stageDelete(r *workspace.Root, op *operation) error {
	res, err := r.WritableTarget(op.path)
	if err != nil {
		return err
	}
	rel := res.Rel
	if err := pl.claim(rel, roleDelete, op); err != nil {
		return err
	}
	b, mode, err := readExisting(r, rel, "delete", op)
	if err != nil {
		return err
	}
	st := pl.state(rel)
	st.exists, st.orig, st.mode = true, b, mode
	st.finalExists = false
	pl.affected = append(pl.affected, AffectedFile{Path: rel, Operation: "delete"})
	pl.summary = append(pl.summary, "D "+rel)
	return nil
}

func (pl *plan) stageUpdate(r *workspace.Root, op *operation) error {
	res, err := r.WritableTarget(op.path)
	if err != nil {
		return err
	}
	rel := res.Rel
	first := pl.used[pl.key(rel)] == ""
	if err := pl.claim(rel, roleUpdate, op); err != nil {
		return err
	}
	st := pl.state(rel)
	if first {
		b, mode, err := readExisting(r, rel, "update", op)
		if err != nil {
			return err
		}
		head := b
		if len(head) > 4096 {
			head = head[:4096]
		}
		if bytes.IndexByte(head, 0) >= 0 {
			return patchFailed(rel, op.line, "binary file: cannot update %s, patching is for text files", rel)
		}
		if !utf8.Valid(b) {
			return patchFailed(rel, op.line, "cannot update %s: it is not valid UTF-8 text", rel)
		}
		st.exists, st.orig, st.mode = true, b, mode
		st.finalExists, st.final, st.finalMode, st.setMode = true, b, mode, true
	}
	if len(op.chunks) > 0 {
		f := decodeText(st.final)
		m := &matcher{path: rel}
		if err := m.apply(f, op.chunks); err != nil {
			return err
		}
		pl.warnings = append(pl.warnings, m.warnings...)
		pl.relaxed = pl.relaxed || m.relaxed
		st.final = f.encode()
	}
	if !op.hasMov {
		pl.affected = append(pl.affected, AffectedFile{Path: rel, Operation: "update"})
		pl.summary = append(pl.summary, "M "+rel)
		return nil
	}
	dres, err := r.WritableTarget(op.moveTo)
	if err != nil {
		return err
	}
	dst := dres.Rel
	if pl.key(dst) == pl.key(rel) { // a move onto itself is an update
		pl.affected = append(pl.affected, AffectedFile{Path: rel, Operation: "update"})
		pl.summary = append(pl.summary, "M "+rel)
		return nil
	}
	pl.used[pl.key(rel)] = roleMoveSrc // claimed above as an update
	if err := pl.claim(dst, roleMoveDst, op); err != nil {
		return err
	}
	same, err := pl.checkNew(r, dst, op, "move to", rel)
	if err != nil {
		return err
	}
	d := pl.state(dst)
	if same { // another name of the very same file (a hard link)
		b, mode, err := readExisting(r, dst, "move to", op)
		if err != nil {
			return err
		}
		d.exists, d.orig, d.mode = true, b, mode
	}
	d.finalExists, d.final, d.finalMode, d.setMode = true, st.final, st.finalMode, true
	st.finalExists, st.final, st.movedTo = false, nil, dst
	pl.affected = append(pl.affected, AffectedFile{Path: dst, OldPath: rel, Operation: "move"})
	pl.summary = append(pl.summary, fmt.Sprintf("R %s -> %s", rel, dst))
	return nil
}
