package gitx

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// filtersSeen remembers each repository's filter drivers with the bytes
// of every configuration file Filters' git read for them. Git's answer
// depends on nothing else (the system configuration is off, the
// command-line overrides name no filter), so while those bytes are the
// same the answer is too, and a git_status need not start a second git
// to learn it. A configuration that includes another file is never
// remembered: its answer depends on files not read here.
var filtersSeen struct {
	sync.Mutex
	byRepo map[string]filtersEntry
}

type filtersEntry struct {
	configs string // the configuration files, path and bytes, as read
	names   []string
}

// configSnapshot is the configuration git reads for r (the user's own
// files, the repository's and the work tree's), each file's path and
// bytes; ok is false when it cannot stand for git's answer: a file
// unreadable, not a regular file, or including another.
func configSnapshot(r *Repo) (string, bool) {
	home, _ := os.UserHomeDir()
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	} else if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"))
	}
	files = append(files, filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree"))
	var snap bytes.Buffer
	for _, p := range files {
		b, err := configBytes(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || bytes.Contains(bytes.ToLower(b), []byte("include")) {
			return "", false
		}
		snap.WriteString(p)
		snap.WriteByte(0)
		snap.Write(b)
		snap.WriteByte(0)
	}
	return snap.String(), true
}

// configBytes reads a configuration file as git does, through a link
// (a user's ~/.gitconfig often is one), but only a regular file.
func configBytes(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New(path + " is not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, fileLimit+1))
	if err == nil && len(b) > fileLimit {
		err = errors.New(path + " is too large to remember")
	}
	return b, err
}

// seenFilters is the answer remembered for r's configuration as it is
// now.
func seenFilters(r *Repo, configs string) ([]string, bool) {
	filtersSeen.Lock()
	defer filtersSeen.Unlock()
	e, ok := filtersSeen.byRepo[r.GitDir]
	if !ok || e.configs != configs {
		return nil, false
	}
	return e.names, true
}

// rememberFilters keeps git's answer for r's configuration as read
// before git ran: a change after that read is found by the next call.
func rememberFilters(r *Repo, configs string, names []string) {
	filtersSeen.Lock()
	defer filtersSeen.Unlock()
	if filtersSeen.byRepo == nil || len(filtersSeen.byRepo) >= 64 {
		filtersSeen.byRepo = map[string]filtersEntry{}
	}
	filtersSeen.byRepo[r.GitDir] = filtersEntry{configs: configs, names: names}
}
