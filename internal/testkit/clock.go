package testkit

import (
	"sync"
	"time"
)

// Clock is a time that moves only when the test moves it: code that reads
// the time through a func() time.Time is given Clock.Now, and the test
// lets time pass with Advance instead of sleeping.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a Clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
