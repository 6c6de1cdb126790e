//go:build !race

package sandbox

const underRace = false
