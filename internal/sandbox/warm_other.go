//go:build !linux

package sandbox

import "errors"

// warmBox has nothing to hold where there are no boxes.
type warmBox struct {
	key       string
	idleTimer interface{ Stop() bool }
}

func (b *warmBox) end() {}

var errNotWarm = errors.New("not startable in a warm box")

func (c *Cmd) startWarm(*Warm) error { return errNotWarm }

// Prepare has no box to build where there are no boxes.
func (w *Warm) Prepare(Policy) bool { return false }
