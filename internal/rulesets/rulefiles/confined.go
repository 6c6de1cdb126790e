package rulefiles

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// A repository is untrusted input: every read and write of an import or
// an export goes through an os.Root of the repository, so that a rule file
// or directory that is a link leading out of it (to a key, another
// project) is refused instead of being read into the library or written
// through.

// maxRuleFile is the largest rule file read: a ruleset's markdown at most,
// and room for its front matter.
const maxRuleFile = rulesets.MaxMarkdownLen + 64<<10

// readRuleFile reads rel (slash-separated) under root: a regular file
// only (never a FIFO or a device, which could hang or never end), of at
// most maxRuleFile bytes.
func readRuleFile(root *os.Root, rel string) (string, error) {
	name := filepath.FromSlash(rel)
	st, err := root.Stat(name)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", rel)
	}
	if st.Size() > maxRuleFile {
		return "", fmt.Errorf("%s has %d bytes, more than a ruleset holds (%d)", rel, st.Size(), maxRuleFile)
	}
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRuleFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxRuleFile {
		return "", fmt.Errorf("%s grew past %d bytes while read", rel, maxRuleFile)
	}
	return string(b), nil
}

// writeRuleFile replaces rel under root whole: a temporary file beside it,
// renamed over it, so that a failed export leaves no half-written file.
func writeRuleFile(root *os.Root, rel, content string) error {
	dir := filepath.FromSlash(path.Dir(rel))
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".sudocode-export-"+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // gone once renamed; else not left behind
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, filepath.FromSlash(rel))
}
