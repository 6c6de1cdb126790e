//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package procs

// liveMembers: without /proc, a group with members is taken as alive.
func liveMembers(int) bool { return true }
