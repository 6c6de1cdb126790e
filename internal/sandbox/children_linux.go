package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// children lists the helper's child processes, zombies excluded, from
// /proc: the children files of its threads where the kernel has them
// (an orphan is reparented to one of the threads), else a scan. Only
// outside a PID namespace: /proc's numbers are those of the server's.
func children() []int {
	self := os.Getpid()
	if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
		var pids []int
		found := false
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			found = true
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && !zombie(pid) {
					pids = append(pids, pid)
				}
			}
		}
		if found {
			return pids
		}
	}
	d, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(strconv.Itoa(self))
	var pids []int
	for _, e := range d {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid := stat(pid)
		if bytes.Equal(ppid, want) && state != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

func zombie(pid int) bool {
	state, _ := stat(pid)
	return state == 'Z' || state == 'X'
}

// stat reads a process's state letter and parent pid.
func stat(pid int) (byte, []byte) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, nil
	}
	// pid (comm) state ppid …; comm may hold anything but ends at the
	// last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, nil
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || len(f[0]) == 0 {
		return 0, nil
	}
	return f[0][0], f[1]
}
