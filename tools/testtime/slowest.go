package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// slowest prints the n slowest tests among the times recorded, slowest
// first. Subtests are listed too: a parent's time holds its sequential
// subtests' but not its parallel ones' (go test reports a parent whose
// subtests all run in parallel at about 0s), so a slow parallel scenario
// is seen only as itself.
func slowest(in io.Reader, out io.Writer, n int) error {
	var all []timing
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var t timing
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return fmt.Errorf("a line that is not a recorded time: %q: %v", sc.Text(), err)
		}
		all = append(all, t)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	slices.SortStableFunc(all, func(a, b timing) int {
		switch {
		case a.Elapsed > b.Elapsed:
			return -1
		case a.Elapsed < b.Elapsed:
			return 1
		}
		return 0
	})
	all = all[:min(n, len(all))]
	fmt.Fprintf(out, "the %d slowest tests:\n", len(all))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, t := range all {
		result := ""
		if t.Action == "fail" {
			result = "\tFAILED"
		}
		fmt.Fprintf(tw, "%7.1fs\t%s\t%s%s\n", t.Elapsed, t.Package, t.Test, result)
	}
	return tw.Flush()
}
