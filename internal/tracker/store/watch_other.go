//go:build !linux

package store

// watcher is Linux's inotify; elsewhere a Repo always scans.
type watcher struct{}

func newWatcher(string) *watcher { return nil }

func (w *watcher) close() {}

func (w *watcher) changed() ([]int, bool) { return nil, true }
