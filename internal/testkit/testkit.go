// Package testkit holds what the tests of several packages share: the rule
// for a missing prerequisite (a skip on a developer's machine, a failure
// under CI), the binaries built once per test process, a buffer a child
// process and a test can share, a git repository and git commands,
// waiting for a condition instead of sleeping, with every deadline scaled
// by one knob, SUDOCODE_TEST_SLOW, and a clock the test moves where time
// must pass.
package testkit
