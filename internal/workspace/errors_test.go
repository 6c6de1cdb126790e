package workspace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

// TestErrorfUnknownCode: a string that is not one of the profile's codes
// never reaches a client as a code, and never takes the server down: it
// becomes INTERNAL_ERROR with the string kept in details.
func TestErrorfUnknownCode(t *testing.T) {
	var e *fault.Error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Errorf panicked on an unknown code: %v", p)
			}
		}()
		e = Errorf("NO_SUCH_CODE", map[string]any{"path": "a"}, "went wrong")
	}()
	c := Classify(e)
	if e.Reason != "INTERNAL_ERROR" || c.Code != CodeInternal || e.Code != fault.Internal || c.Category != CatInternal || c.Retryable ||
		e.Details["code"] != "NO_SUCH_CODE" || e.Details["path"] != "a" || e.Msg != "went wrong" {
		t.Fatalf("unknown code became %+v", e)
	}
}

// TestErrorCodesTable: every code maps to the category and retryable flag of
// the profile's table (docs/coding-tools.md#errors), and to one fault code,
// whose category is the code's own unless the failure's fault code is
// another (a PATCH_FAILED that the disk caused is runtime). The wire error's
// keys are the edge's (mcpcoding's TestToolErrorKeys).
func TestErrorCodesTable(t *testing.T) {
	want := map[string]string{
		"INVALID_ARGUMENT": "validation", "PATH_OUTSIDE_WORKSPACE": "security", "ABSOLUTE_PATH_DENIED": "security",
		"SYMLINK_ESCAPE": "security", "NOT_FOUND": "not_found", "NOT_A_DIRECTORY": "validation", "IS_DIRECTORY": "validation",
		"BINARY_FILE": "validation", "UNSUPPORTED_ENCODING": "validation", "OUTPUT_TOO_LARGE": "validation", "TIMEOUT": "runtime",
		"SESSION_NOT_FOUND": "not_found", "SESSION_CLOSED": "runtime", "COMMAND_REJECTED": "security",
		"PERMISSION_REQUIRED": "permission", "PERMISSION_DENIED": "permission", "SANDBOX_UNAVAILABLE": "security",
		"ELICITATION_UNSUPPORTED": "permission", "PATCH_FAILED": "validation", "GIT_ERROR": "runtime", "INTERNAL_ERROR": "internal",
	}
	codes := Codes()
	if len(codes) != len(want) {
		t.Fatalf("%d codes, the profile has %d", len(codes), len(want))
	}
	for _, c := range codes {
		e := Errorf(c, nil, "m")
		k := Classify(e)
		if e.Reason != string(c) || k.Code != c || string(k.Category) != want[string(c)] || k.Retryable != (c == CodeTimeout) ||
			!slices.Contains(fault.Codes, e.Code) || e.Details == nil || e.Msg != "m" {
			t.Errorf("%s: %+v, want category %s", c, e, want[string(c)])
		}
	}
	e := Errorf(CodePatchFailed, nil, "m")
	e.Code = fault.Unavailable
	if cat := Classify(e).Category; cat != CatRuntime {
		t.Errorf("an unavailable PATCH_FAILED is %s, want runtime", cat)
	}
	e = Errorf(CodeSandboxUnavailable, nil, "m")
	if cat := Classify(e).Category; e.Code != fault.Unavailable || cat != CatSecurity {
		t.Errorf("SANDBOX_UNAVAILABLE is %s %s, want unavailable security", e.Code, cat)
	}
}

// TestErrorfLiteralsAreCodes: a code written as a string literal (the
// packages that predate the constants) is one of the set, so that no call
// site falls back to INTERNAL_ERROR by a typo.
func TestErrorfLiteralsAreCodes(t *testing.T) {
	known := map[string]bool{}
	for _, c := range Codes() {
		known[string(c)] = true
	}
	fset := token.NewFileSet()
	calls := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok && x.Name == "workspace" {
					name = fn.Sel.Name
				}
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && name == "Errorf" && lit.Kind == token.STRING {
				calls++
				if code, _ := strconv.Unquote(lit.Value); !known[code] {
					t.Errorf("%s: Errorf(%s): not one of the profile's codes", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("no Errorf call with a literal code found: the scan is looking in the wrong place")
	}
}
