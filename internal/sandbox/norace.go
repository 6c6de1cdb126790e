//go:build !race

package sandbox

// raceEnv is nothing outside race-enabled builds (race.go).
var raceEnv []string
