package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
)

// The files the user's own git configuration reads besides itself
// (include.path, includeIf.*.path, core.excludesFile): a sandboxed git
// dies on a configuration include it may not read, so they are granted
// read-only, as the configuration is. They are the user's, not the
// repository's; credential stores are never granted.

type userFilesCache struct {
	mu    sync.Mutex
	stamp string // the global configuration files' sizes and times
	files []string
}

var userFiles userFilesCache

// userConfigFiles are the files the user's global configuration names,
// recomputed when that configuration changes.
func userConfigFiles(home string) []string {
	configs := globalConfigFiles(home)
	var stamp strings.Builder
	for _, c := range configs {
		p := c
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, "config")
		}
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&stamp, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	userFiles.mu.Lock()
	defer userFiles.mu.Unlock()
	if userFiles.stamp == stamp.String() && userFiles.files != nil {
		return userFiles.files
	}
	userFiles.stamp, userFiles.files = stamp.String(), readUserConfigFiles(home)
	return userFiles.files
}

// readUserConfigFiles asks git (in /, no repository involved) which
// files the global configuration includes or names as excludes file.
func readUserConfigFiles(home string) []string {
	files := []string{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := Output(ctx, Options{Dir: string(os.PathSeparator)}, 1<<20, "config", "--global", "--includes", "--show-origin", "-z",
		"--get-regexp", `^(include|includeif\..*)\.path$|^core\.excludesfile$`)
	if err != nil {
		return files
	}
	recs := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		origin, ok := strings.CutPrefix(recs[i], "file:")
		if !ok {
			continue
		}
		_, value, _ := strings.Cut(recs[i+1], "\n")
		p := expandPath(value, home, filepath.Dir(origin))
		if p != "" && sandbox.CheckAllowRoot(p, home) == nil {
			files = append(files, p)
		}
	}
	return files
}

// expandPath resolves a configuration path as git does: "~/" is the
// home, a relative include is relative to the including file.
func expandPath(v, home, base string) string {
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, v[2:])
	case strings.HasPrefix(v, "~"):
		return "" // another user's home: not granted
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	}
	return filepath.Join(base, v)
}
