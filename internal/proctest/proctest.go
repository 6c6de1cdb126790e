// Package proctest tells tests which processes are still alive. Test
// machines often run a PID 1 that never reaps orphans, so a killed child
// can linger as a zombie that kill(-pgid, 0) still finds: only /proc says
// whether a process of a group still runs.
package proctest

import (
	"os"
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
