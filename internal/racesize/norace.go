//go:build !race

package racesize

// Detector says whether the race detector is built in.
const Detector = false
