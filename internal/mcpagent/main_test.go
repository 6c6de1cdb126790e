package mcpagent_test

import (
	"os"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.RunWithPrivateState(m)) }
