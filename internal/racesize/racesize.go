// Package racesize sizes a test's work for the build it runs in. A test
// of scale (10,000 rulesets, hundreds of random changes) asserts
// behaviour, not speed; under the race detector, which makes the code it
// instruments (SQLite's pure-Go engine included) five to twenty times
// slower, it runs a smaller size chosen to take the same paths: several
// pages, many changes, a directory still past every limit.
package racesize

// Of is full in an ordinary build and small in one with the race
// detector (go test -race).
func Of(full, small int) int {
	if Detector {
		return small
	}
	return full
}
