package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	ImportPath string // build output
	Test       string
	Elapsed    float64
	Output     string
}

// timing is one finished test, as record keeps it.
type timing struct {
	Package string  `json:"package"`
	Test    string  `json:"test"`
	Action  string  `json:"action"` // pass or fail
	Elapsed float64 `json:"elapsed"`
}

// record copies the run's readable output to out and appends each
// finished test's time to times. A test's own output is held until it
// ends and shown only if it failed, or if its package failed before it
// ended (a panic, a timeout), as plain go test does.
func record(in io.Reader, out, times io.Writer) error {
	held := map[string][]string{} // package + "\x00" + test → output
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(times)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // not an event: the go command's own words
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			io.WriteString(out, e.Output)
		case e.Action == "output" && e.Test != "":
			if !strings.HasPrefix(e.Output, "=== ") {
				held[key] = append(held[key], e.Output)
			}
		case e.Action == "output":
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				io.WriteString(out, e.Output)
			}
		case (e.Action == "pass" || e.Action == "fail") && e.Test != "":
			if e.Action == "fail" {
				io.WriteString(out, strings.Join(held[key], ""))
			}
			delete(held, key)
			if err := enc.Encode(timing{e.Package, e.Test, e.Action, e.Elapsed}); err != nil {
				return err
			}
		case e.Action == "skip" && e.Test != "":
			delete(held, key)
		case e.Action == "fail":
			// The package failed with tests unfinished: show what they said.
			for k, lines := range held {
				if strings.HasPrefix(k, e.Package+"\x00") {
					io.WriteString(out, strings.Join(lines, ""))
					delete(held, k)
				}
			}
		}
	}
	return sc.Err()
}
