package patch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/workspace"
)

// journal is what phase 3 has done so far, so that it can be undone.
type journal struct {
	r       *workspace.Root
	hook    func(op, rel string) error // tests inject failures here
	dirs    []string                   // directories created, in order
	written []*fileState               // files renamed into place
	removed []*fileState               // files removed
}

func (j *journal) step(op, rel string) error {
	if j.hook != nil {
		return j.hook(op, rel)
	}
	return nil
}

// commit writes the plan (phase 3): every new or updated file through a
// temp file in its directory renamed into place, then the removals. On any
// failure it restores everything it changed.
func commit(r *workspace.Root, pl *plan, hook func(op, rel string) error) error {
	j := &journal{r: r, hook: hook}
	for _, k := range pl.order {
		st := pl.files[k]
		if !st.finalExists {
			continue
		}
		rel := st.rel
		if failed, err := j.mkdirs(rel); err != nil {
			return j.rollback(failed, err)
		}
		if err := j.step("write", rel); err != nil {
			return j.rollback(rel, err)
		}
		if err := j.writeFile(rel, st.final, st.finalMode, st.setMode); err != nil {
			return j.rollback(rel, err)
		}
		j.written = append(j.written, st)
	}
	for _, k := range pl.order {
		st := pl.files[k]
		if st.finalExists || !st.exists {
			continue
		}
		rel := st.rel
		if st.movedTo != "" && j.sameFile(rel, st.movedTo) {
			continue // the destination is this very entry (another spelling of it)
		}
		if err := j.step("remove", rel); err != nil {
			return j.rollback(rel, err)
		}
		if err := r.FS.Remove(osPath(rel)); err != nil {
			return j.rollback(rel, err)
		}
		j.removed = append(j.removed, st)
	}
	return nil
}

func (j *journal) sameFile(a, b string) bool {
	fa, err := j.r.FS.Lstat(osPath(a))
	if err != nil {
		return false
	}
	fb, err := j.r.FS.Lstat(osPath(b))
	return err == nil && os.SameFile(fa, fb)
}

// mkdirs creates the missing parents of rel, outermost first; on failure
// it names the directory it could not create.
func (j *journal) mkdirs(rel string) (string, error) {
	var chain []string
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		chain = append(chain, dir)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		dir := chain[i]
		if _, err := j.r.FS.Lstat(osPath(dir)); err == nil {
			continue
		}
		if err := j.step("mkdir", dir); err != nil {
			return dir, err
		}
		if err := j.r.FS.Mkdir(osPath(dir), 0o777); err != nil {
			return dir, err
		}
		j.dirs = append(j.dirs, dir)
	}
	return "", nil
}

func tempName(rel string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	base := path.Base(rel)
	if len(base) > 64 {
		base = base[:64]
	}
	return path.Join(path.Dir(rel), "."+base+"."+hex.EncodeToString(b[:])+".patch-tmp")
}

// writeFile replaces rel with data through a temp file in its directory;
// with setMode the file gets exactly mode, else the default mode (umask).
func (j *journal) writeFile(rel string, data []byte, mode fs.FileMode, setMode bool) error {
	perm := fs.FileMode(0o666)
	if setMode {
		perm = 0o600
	}
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 10 {
		tmp = tempName(rel)
		f, err = j.r.FS.OpenFile(osPath(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && setMode {
		err = j.r.FS.Chmod(osPath(tmp), mode)
	}
	if err == nil {
		err = j.step("rename", rel)
	}
	if err == nil {
		err = j.r.FS.Rename(osPath(tmp), osPath(rel))
	}
	if err != nil {
		_ = j.r.FS.Remove(osPath(tmp))
	}
	return err
}

// rollback undoes every change in reverse order and reports the failure:
// PATCH_FAILED (runtime) when everything was restored, INTERNAL_ERROR
// listing what could not be.
func (j *journal) rollback(failed string, cause error) error {
	var lost []string
	for i := len(j.removed) - 1; i >= 0; i-- {
		st := j.removed[i]
		err := j.step("restore", st.rel)
		if err == nil {
			err = j.writeFile(st.rel, st.orig, st.mode, true)
		}
		if err != nil {
			lost = append(lost, st.rel)
		}
	}
	for i := len(j.written) - 1; i >= 0; i-- {
		st := j.written[i]
		err := j.step("restore", st.rel)
		if err == nil {
			if st.exists {
				err = j.writeFile(st.rel, st.orig, st.mode, true)
			} else {
				err = j.r.FS.Remove(osPath(st.rel))
			}
		}
		if err != nil {
			lost = append(lost, st.rel)
		}
	}
	for i := len(j.dirs) - 1; i >= 0; i-- {
		err := j.step("rmdir", j.dirs[i])
		if err == nil {
			err = j.r.FS.Remove(osPath(j.dirs[i]))
		}
		if err != nil {
			lost = append(lost, j.dirs[i]+"/")
		}
	}
	msg := cause.Error()
	if len(lost) > 0 {
		return workspace.Errorf(workspace.CodeInternal, map[string]any{"path": failed, "error": msg, "not_restored": lost},
			"patch commit failed at %s (%s) and the rollback failed too: could not restore %s",
			failed, msg, strings.Join(lost, ", "))
	}
	// The patch was good; the disk failed it: unavailable, which the
	// profile writes as a runtime PATCH_FAILED (workspace.Classify).
	fe := workspace.Errorf(workspace.CodePatchFailed, map[string]any{"path": failed, "error": msg},
		"patch commit failed at %s: %s; every change was rolled back, nothing was modified", failed, msg)
	fe.Code = fault.Unavailable
	return fe
}

// describe is the summary of a plan's operations.
func describe(pl *plan) string { return strings.Join(pl.summary, "\n") }
