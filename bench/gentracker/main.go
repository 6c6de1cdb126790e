// Command gentracker writes a generated tracker repository (10,000 issues,
// 1,000 specs and 20,000 relationships by default) for trying sudocode at
// scale: go run ./bench/gentracker -o /tmp/big && cd /tmp/big && sudocode ready
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

func main() {
	size := trackergen.Benchmark
	out := flag.String("o", "", "directory to create the tracker in (required)")
	flag.IntVar(&size.Issues, "issues", size.Issues, "issues to generate")
	flag.IntVar(&size.Specs, "specs", size.Specs, "specs to generate")
	flag.IntVar(&size.Relationships, "relationships", size.Relationships, "relationships to generate")
	first := flag.Bool("first-layout", false, "write the records in the first layout (issues.jsonl, specs.jsonl, feedback.jsonl), which the next command migrates to shard files")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gentracker -o DIR [-first-layout] [-issues N] [-specs N] [-relationships N]")
		os.Exit(2)
	}
	generate := trackergen.Generate
	if *first {
		generate = trackergen.GenerateFirstLayout
	}
	if err := generate(*out, size); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	fmt.Printf("generated %d issues, %d specs, %d relationships in %s/.sudocode\n", size.Issues, size.Specs, size.Relationships, *out)
}
