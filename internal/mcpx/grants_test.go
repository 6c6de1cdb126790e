package mcpx

import (
	"strings"
	"testing"
)

// A token file line may grant admin and command after NAME TOKEN; a line
// of two fields grants neither, and only where a file names the clients
// do grants apply at all.
func TestTokenFileGrants(t *testing.T) {
	path := writeTokenFile(t, "", "alice "+aliceToken+" command\nbob "+bobToken+"\ncarol "+carolToken+" admin command\n")
	a, err := NewAuth("single-token-value", path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	for caller, want := range map[string]Grants{
		"alice":           {Team: true, Command: true},
		"bob":             {Team: true},
		"carol":           {Team: true, Admin: true, Command: true},
		SingleTokenCaller: {Team: true, Admin: true, Command: true},
		"":                {Team: true},
	} {
		if got := a.GrantsOf(caller); got != want {
			t.Errorf("GrantsOf(%q) = %+v, want %+v", caller, got, want)
		}
	}
	single, err := NewAuth("single-token-value", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var none *Auth
	for name, a := range map[string]*Auth{"single token": single, "no token": none} {
		if got := a.GrantsOf(SingleTokenCaller); got != (Grants{}) {
			t.Errorf("%s: GrantsOf = %+v, want everything allowed (the zero Grants)", name, got)
		}
	}
}

// A client of the file named as the single token would share its tasks
// and its grants.
func TestTokenFileRefusesTheSingleTokensName(t *testing.T) {
	_, err := NewAuth("single-token-value", writeTokenFile(t, "", SingleTokenCaller+" "+aliceToken+"\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "is the single --token's") {
		t.Fatalf("a client named %s: %v, want refused", SingleTokenCaller, err)
	}
}

func TestTokenFileRefusesUnknownGrants(t *testing.T) {
	_, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+" "+bobToken+"\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "field 3 is not a grant") {
		t.Fatalf("a line with a second token: %v, want refused", err)
	}
	if strings.Contains(err.Error(), bobToken) {
		t.Errorf("the error quotes what may be a token: %v", err)
	}
}
