package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

// TestHTTPStatusOfEveryCode: every code of the closed set has its own
// status, internal and unclassified errors are 500, a cancelled request 499.
func TestHTTPStatusOfEveryCode(t *testing.T) {
	seen := map[int]fault.Code{}
	for _, c := range fault.Codes {
		st := httpStatus(fault.New(c, "x"))
		if prev, dup := seen[st]; dup {
			t.Errorf("%s and %s both map to %d", prev, c, st)
		}
		seen[st] = c
	}
	if st := httpStatus(fmt.Errorf("plain")); st != http.StatusInternalServerError {
		t.Errorf("a plain error: %d", st)
	}
	if st := httpStatus(fmt.Errorf("read: %w", context.Canceled)); st != 499 {
		t.Errorf("a cancelled request: %d", st)
	}
}
