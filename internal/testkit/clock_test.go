package testkit

import (
	"testing"
	"time"
)

// A Clock stands still until advanced, by exactly what it is advanced.
func TestClock(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now = %v, want %v", got, start)
	}
	c.Advance(1500 * time.Millisecond)
	c.Advance(time.Hour)
	if got, want := c.Now(), start.Add(time.Hour+1500*time.Millisecond); !got.Equal(want) {
		t.Fatalf("after advancing 1h1.5s, Now = %v, want %v", got, want)
	}
}
