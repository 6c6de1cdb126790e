package racesize

import "testing"

// Of picks the size of the build the test runs in: run with and without
// -race, each build checks its own.
func TestOfPicksTheBuildsSize(t *testing.T) {
	want := 10_000
	if Detector {
		want = 1_000
	}
	if got := Of(10_000, 1_000); got != want {
		t.Fatalf("Of(10000, 1000) = %d in a build with the race detector %v, want %d", got, Detector, want)
	}
}
