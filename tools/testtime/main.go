// Command testtime sits behind `go test -json`: it prints what a plain
// `go test` would (each package's result line, and the output of the tests
// that failed), keeps every finished test's time in a file, and lists the
// slowest tests of all the runs recorded there.
//
//	go test -json ./... | testtime record times.jsonl
//	testtime slowest 20 times.jsonl
//
// .ci/test records each of its test steps and prints the 20 slowest at
// the end.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testtime:", err)
		os.Exit(2)
	}
}

const usage = "usage: testtime record FILE < go-test-json, or testtime slowest N FILE"

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "record":
		f, err := os.OpenFile(args[1], os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if err := record(stdin, stdout, f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case len(args) == 3 && args[0] == "slowest":
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("slowest %q: want a count of at least 1\n%s", args[1], usage)
		}
		f, err := os.Open(args[2])
		if err != nil {
			return err
		}
		defer f.Close()
		return slowest(f, stdout, n)
	}
	return fmt.Errorf("%s", usage)
}
