// Package bench holds the end-to-end benchmarks of the built binaries;
// bench/rulesets.sh runs them with the in-process ones and prints ratios
// against the peers measured in the same run.
package bench
