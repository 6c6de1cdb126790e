package bench_test

import (
	"os"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// TestMain removes the binaries the benchmarks built (testkit.Binary).
func TestMain(m *testing.M) { os.Exit(testkit.Run(m)) }
