package mcprulesets

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// EnvImportRoots lists the directories import_rules may read under,
// separated as PATH is (':'), when --import-root does not.
const EnvImportRoots = "SUDOCODE_IMPORT_ROOTS"

// DefaultImportRoots are the directories import_rules reads under when
// the server is given none: those of SUDOCODE_IMPORT_ROOTS, else the
// directory the server runs in (the project it serves).
func DefaultImportRoots() []string {
	var roots []string
	for _, d := range filepath.SplitList(os.Getenv(EnvImportRoots)) {
		if d != "" {
			roots = append(roots, d)
		}
	}
	if len(roots) > 0 {
		return roots
	}
	if wd, err := os.Getwd(); err == nil {
		return []string{wd}
	}
	return nil
}

// importRoots are absolute, clean directories. A client names a path on
// the server's machine, which it may not read at will: import_rules reads
// only under one of these, and through it (rulefiles.ImportUnder), so
// that neither ".." nor a link leads out.
type importRoots []string

func newImportRoots(dirs []string) importRoots {
	var out importRoots
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// importRules imports p, a path absolute or relative to the first root.
func (r importRoots) importRules(ctx context.Context, lib rulesets.Library, p string, force bool) (rulefiles.ImportReport, error) {
	if len(r) == 0 {
		return rulefiles.ImportReport{}, fault.New(fault.Unavailable, "this server imports from no directory").
			WithHint("start it with --import-root DIR (or " + EnvImportRoots + ")")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r[0], abs)
	}
	abs = filepath.Clean(abs)
	for _, root := range r {
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		dir, err := os.OpenRoot(root)
		if err != nil {
			return rulefiles.ImportReport{}, fault.Wrap(fault.Unavailable, err, "cannot open the import directory "+root)
		}
		defer dir.Close()
		return rulefiles.ImportUnder(ctx, lib, dir, rel, force)
	}
	return rulefiles.ImportReport{}, fault.New(fault.Invalid, "%s is outside the directories this server imports from (%s)", p, strings.Join(r, ", ")).
		WithHint("import a repository under one of them; the server's operator adds others with --import-root DIR (or " + EnvImportRoots + ")")
}
