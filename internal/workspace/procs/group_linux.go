package procs

import (
	"bytes"
	"os"
	"strconv"
)

// liveMembers reports whether a process of group pgid is not a zombie,
// from /proc (true when /proc cannot tell).
func liveMembers(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	want := []byte(strconv.Itoa(pgid))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold anything but
		// ends at the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) >= 3 && bytes.Equal(f[2], want) && !bytes.Equal(f[0], []byte("Z")) && !bytes.Equal(f[0], []byte("X")) {
			return true
		}
	}
	return false
}
