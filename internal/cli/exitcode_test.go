package cli

import (
	"errors"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

// TestExitCodeOfEveryFaultCode: every code of the closed set has its own
// exit code, internal and unclassified errors 1, a usage error 2.
func TestExitCodeOfEveryFaultCode(t *testing.T) {
	seen := map[int]fault.Code{}
	for _, c := range fault.Codes {
		code := exitCode(fault.New(c, "x"))
		if prev, dup := seen[code]; dup {
			t.Errorf("%s and %s both exit %d", prev, c, code)
		}
		seen[code] = c
	}
	if exitCode(errors.New("plain")) != exitError || exitCode(usageError{errors.New("bad flag")}) != exitInvalid {
		t.Error("plain or usage error")
	}
	if e := jsonError(usageError{errors.New("bad flag")}); e.Error.Code != fault.Invalid || e.Error.Message != "bad flag" || e.Error.Hint != nil {
		t.Errorf("usage error envelope: %+v", e)
	}
}
