// Package proctest tells tests which processes are still alive. Test
// machines often run a PID 1 that never reaps orphans, so a killed child
// can linger as a zombie that kill(-pgid, 0) still finds: only /proc says
// whether a process of a group still runs.
package proctest

import (
	"os"
	"slices"
	"strconv"
	"strings"
)

// GroupMembers returns the pids of the live (not zombie) processes whose
// process group is pgid.
func GroupMembers(pgid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	want := strconv.Itoa(pgid)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 > len(s) {
			continue
		}
		// After "pid (comm) ": state ppid pgrp …
		fields := strings.Fields(s[i+2:])
		if len(fields) > 2 && fields[2] == want && fields[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// WithArg counts the live (not zombie) processes that have arg as one of
// their command-line arguments.
func WithArg(arg string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !slices.Contains(strings.Split(string(b), "\x00"), arg) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") {
				continue
			}
		}
		n++
	}
	return n
}
