package tracker

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/fault"
)

// ParseEnum checks v against the values of an enumeration; field names the
// flag or parameter in the error.
func ParseEnum[T ~string](field, v string, valid []T) (T, error) {
	for _, e := range valid {
		if string(e) == v {
			return e, nil
		}
	}
	names := make([]string, len(valid))
	for i, e := range valid {
		names[i] = string(e)
	}
	return "", fault.New(fault.Invalid, "invalid %s %q: must be one of %s", field, v, strings.Join(names, ", "))
}

// CheckPriority enforces 0 (highest) to 4.
func CheckPriority(p int) error {
	if p < 0 || p > 4 {
		return fault.New(fault.Invalid, "invalid priority %d: must be 0 (highest) to 4 (lowest)", p)
	}
	return nil
}

// MaxTitleLen is the longest title, in characters.
const MaxTitleLen = 500

// CleanTitle trims a title and checks it is 1 to 500 characters.
func CleanTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	if t == "" {
		return "", fault.New(fault.Invalid, "title must not be empty")
	}
	if n := utf8.RuneCountInString(t); n > MaxTitleLen {
		return "", fault.New(fault.Invalid, "title is too long (%d characters; the limit is %d)", n, MaxTitleLen)
	}
	if strings.ContainsAny(t, "\r\n") {
		return "", fault.New(fault.Invalid, "title must be a single line")
	}
	return t, nil
}

// CheckEstimate refuses a negative estimate (minutes).
func CheckEstimate(m int) error {
	if m < 0 {
		return fault.New(fault.Invalid, "invalid estimate %d: minutes must be 0 or more", m)
	}
	return nil
}

var prefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]{0,19}$`) })

// CheckPrefix enforces an id prefix of a lowercase letter and up to 19
// lowercase letters or digits (no dash: dashes separate the id's parts).
func CheckPrefix(p string) error {
	if !prefixRE().MatchString(p) {
		return fault.New(fault.Invalid, "invalid prefix %q: use 1-20 lowercase letters or digits, starting with a letter", p)
	}
	return nil
}

// NotFound is the error for an unknown id.
func NotFound(kind, id string) *fault.Error {
	hint := "check the id with list_issues (CLI: `sudocode issue list`)"
	switch kind {
	case "spec":
		hint = "check the id with list_specs (CLI: `sudocode spec list`)"
	case "feedback":
		hint = "check the id with list_feedback (CLI: `sudocode feedback list`)"
	}
	return fault.New(fault.NotFound, "%s %s not found", kind, id).WithHint(hint)
}
