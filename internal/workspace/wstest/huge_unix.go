//go:build unix

package wstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// HugeDir fills the directory ws/big with n entries f000000.txt …,
// created in a scrambled order. They are hard links to two empty files in
// ws/seeds: no inode to allocate per entry keeps the setup fast (ext4
// allows 65,000 links per inode).
func HugeDir(t testing.TB, ws string, n int) {
	t.Helper()
	Write(t, ws, map[string]string{"big/": "", "seeds/s0": "", "seeds/s1": ""})
	seeds, err := os.Open(filepath.Join(ws, "seeds"))
	if err != nil {
		t.Fatal(err)
	}
	defer seeds.Close()
	big, err := os.Open(filepath.Join(ws, "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	for i := range n {
		if err := unix.Linkat(int(seeds.Fd()), "s"+strconv.Itoa(i%2), int(big.Fd()), fmt.Sprintf("f%06d.txt", (i*7919)%n), 0); err != nil {
			t.Fatal(err)
		}
	}
}
