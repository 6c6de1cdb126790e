package fleetrun

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/natsbus"
)

// Registry is a coordinator's record of the workers it issued
// credentials to: each one's name, public key and the repositories it may
// work on, in workers.json under the coordinator's fleet directory. The
// seeds are not kept: a worker's is in the file given to it alone.
type Registry struct{ dir string }

// Grant is one worker's entry.
type Grant struct {
	Name     string    `json:"name"`
	Public   string    `json:"public"`
	Repos    []string  `json:"repos"`
	IssuedAt time.Time `json:"issued_at"`
}

// OpenRegistry returns the registry kept in dir (made 0700 at the first
// write).
func OpenRegistry(dir string) *Registry { return &Registry{dir: dir} }

func (r *Registry) path() string { return filepath.Join(r.dir, "workers.json") }

// List returns the grants, by name.
func (r *Registry) List() ([]Grant, error) {
	b, err := os.ReadFile(r.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "failed to read the workers' registry")
	}
	var f struct {
		Workers []Grant `json:"workers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, r.path()+" is not a workers' registry")
	}
	sort.Slice(f.Workers, func(i, j int) bool { return f.Workers[i].Name < f.Workers[j].Name })
	return f.Workers, nil
}

// Issue makes credentials for a new worker called name, allowed the
// repositories repos (RepoKeys), and records them. A name in use is a
// conflict: Remove it first.
func (r *Registry) Issue(name string, repos []string, now time.Time) (natsbus.Creds, error) {
	var c natsbus.Creds
	err := r.update(func(gs []Grant) ([]Grant, error) {
		if slices.ContainsFunc(gs, func(g Grant) bool { return g.Name == name }) {
			return nil, fault.New(fault.Conflict, "a worker called %s was issued credentials already", name).
				WithHint("sudocode workers remove " + name + " revokes them; or choose another name")
		}
		if name == CoordinatorUser || name == LocalWorker {
			return nil, fault.New(fault.Invalid, "%q is the name of the coordinator or of its own worker: choose another", name)
		}
		var err error
		if c, err = natsbus.NewCreds(name); err != nil {
			return nil, fault.Wrap(fault.Invalid, err, "invalid worker name "+name)
		}
		return append(gs, Grant{Name: name, Public: c.Public, Repos: repos, IssuedAt: now.UTC()}), nil
	})
	return c, err
}

// Remove revokes worker name's credentials.
func (r *Registry) Remove(name string) error {
	return r.update(func(gs []Grant) ([]Grant, error) {
		out := slices.DeleteFunc(slices.Clone(gs), func(g Grant) bool { return g.Name == name })
		if len(out) == len(gs) {
			return nil, fault.New(fault.NotFound, "no worker called %s", name)
		}
		return out, nil
	})
}

// update changes the grants under an exclusive lock and writes them
// back atomically.
func (r *Registry) update(change func([]Grant) ([]Grant, error)) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to make the fleet directory")
	}
	lock, err := os.OpenFile(filepath.Join(r.dir, "workers.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to lock the workers' registry")
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to lock the workers' registry")
	}
	gs, err := r.List()
	if err != nil {
		return err
	}
	if gs, err = change(gs); err != nil {
		return err
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	b, err := json.MarshalIndent(struct {
		Workers []Grant `json:"workers"`
	}{gs}, "", "  ")
	if err != nil {
		return err
	}
	tmp := r.path() + ".new"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to write the workers' registry")
	}
	if err := os.Rename(tmp, r.path()); err != nil {
		return fault.Wrap(fault.Unavailable, err, "failed to write the workers' registry")
	}
	return nil
}
