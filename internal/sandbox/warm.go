package sandbox

import (
	"sync"
	"time"
)

// Warm keeps boxes built and waiting, so that a command costs one fork
// and exec instead of building a box. A warm box is a supervisor (the
// box's first process, as for any boxed command) whose restricted second
// stage does not exec a command but stays, as a zygote: it runs the
// commands the server sends it over a socket one at a time, each in a
// session of its own, and between two commands ends everything the last
// one left (it is their subreaper, and the box's PID namespace holds
// nothing else). A box serves one policy; a box that is busy is not
// shared, so commands that run at the same time get boxes of their own.
// Anything wrong with a warm box (its zygote killed or stopped, a message
// too large) ends the box, never the server's call: the command then
// starts the cold way.
//
// What commands share through a warm box is what the policy already
// shares between them: the same paths, plus the box's own /tmp and
// /dev/shm, which outlive a command as a workspace's private temp
// directory does.
type Warm struct {
	mu   sync.Mutex
	idle map[string][]*warmBox // by policy, most recently used last
	all  map[*warmBox]struct{}
	// building are the boxes Prepare is building, by policy, each closed
	// once its box is idle (or failed): a command of that policy waits for
	// it rather than build a second box beside it on the same cores.
	building map[string]chan struct{}
	closed   bool
	built    int
	reused   int
}

// WarmIdle is how long a warm box waits for its next command before it
// is ended; WarmPerPolicy is how many idle boxes a policy keeps.
const (
	WarmIdle      = 30 * time.Second
	WarmPerPolicy = 2
)

// NewWarm returns an empty set of warm boxes; Close ends them.
func NewWarm() *Warm {
	return &Warm{idle: map[string][]*warmBox{}, all: map[*warmBox]struct{}{}, building: map[string]chan struct{}{}}
}

// Close ends every warm box, idle or running a command, and keeps new
// ones from being made: commands started afterwards start cold.
func (w *Warm) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closed = true
	boxes := make([]*warmBox, 0, len(w.all))
	for b := range w.all {
		boxes = append(boxes, b)
	}
	w.idle = map[string][]*warmBox{}
	w.mu.Unlock()
	for _, b := range boxes {
		b.end()
	}
}

// take removes and returns an idle box of key, or nil.
func (w *Warm) take(key string) *warmBox {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.idle[key]
	if len(list) == 0 {
		return nil
	}
	b := list[len(list)-1]
	w.idle[key] = list[:len(list)-1]
	b.idleTimer.Stop()
	w.reused++
	return b
}

// startBuilding records that Prepare builds a box of key; false when one
// is idle or being built already. The caller calls the returned function
// once the box is idle, or could not be made.
func (w *Warm) startBuilding(key string) (done func(), ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.idle[key]) > 0 || w.building[key] != nil {
		return nil, false
	}
	ch := make(chan struct{})
	w.building[key] = ch
	return func() {
		w.mu.Lock()
		delete(w.building, key)
		w.mu.Unlock()
		close(ch)
	}, true
}

// awaitBuilding waits, at most StartTimeout, for the box Prepare is
// building for key, if any.
func (w *Warm) awaitBuilding(key string) {
	w.mu.Lock()
	ch := w.building[key]
	w.mu.Unlock()
	if ch == nil {
		return
	}
	awaiting(key)
	t := time.NewTimer(StartTimeout)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// awaiting is called when a command starts waiting for a box being
// built (tests observe it).
var awaiting = func(key string) {}

// add records a new box; false if the set is closed (the caller ends it).
func (w *Warm) add(b *warmBox) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.all[b] = struct{}{}
	w.built++
	return true
}

// Built is how many boxes the set has built so far.
func (w *Warm) Built() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.built
}

// Reused is how many commands ran in a box built for an earlier one.
func (w *Warm) Reused() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reused
}

// put returns a box that finished a command to the idle ones, or ends it
// when there are enough or the set is closed.
func (w *Warm) put(b *warmBox) {
	w.mu.Lock()
	if w.closed || len(w.idle[b.key]) >= WarmPerPolicy {
		w.mu.Unlock()
		w.drop(b)
		return
	}
	w.idle[b.key] = append(w.idle[b.key], b)
	b.idleTimer = time.AfterFunc(WarmIdle, func() {
		w.mu.Lock()
		list := w.idle[b.key]
		for i, x := range list {
			if x == b {
				w.idle[b.key] = append(list[:i:i], list[i+1:]...)
				w.mu.Unlock()
				w.drop(b)
				return
			}
		}
		w.mu.Unlock() // taken meanwhile
	})
	w.mu.Unlock()
}

// drop ends a box that is not idle.
func (w *Warm) drop(b *warmBox) {
	w.mu.Lock()
	delete(w.all, b)
	w.mu.Unlock()
	b.end()
}
