package orchestrator

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/trust"
	"github.com/sudocode/sudocode/internal/userenv"
)

// Trust states of a project's settings file.
const (
	TrustNotNeeded = "not_needed" // no file, or one without commands: nothing runs
	TrustTrusted   = "trusted"    // the user trusted these exact bytes
	TrustUntrusted = "untrusted"  // never trusted
	TrustChanged   = "changed"    // trusted once, changed since
)

// fileTrust is what the user's trust records say of a settings file's
// bytes.
type fileTrust struct {
	top, digest string
	state       string // TrustTrusted, TrustUntrusted or TrustChanged
	trustedAt   time.Time
}

// lookupTrust looks the settings file's bytes b up in the records of the
// user of env.
func lookupTrust(top string, b []byte, env userenv.Env) (fileTrust, error) {
	ft := fileTrust{top: top, digest: trust.Digest(b), state: TrustUntrusted}
	st, err := trust.Open(env)
	if err != nil {
		return ft, fault.Wrap(fault.Unavailable, err, "cannot read the trusted files")
	}
	rec, ok, err := st.Lookup(top, settingsFile)
	if err != nil {
		return ft, fault.Wrap(fault.Unavailable, err, "cannot read the trusted files")
	}
	switch {
	case ok && rec.SHA256 == ft.digest:
		ft.state, ft.trustedAt = TrustTrusted, rec.TrustedAt
	case ok:
		ft.state = TrustChanged
	}
	return ft, nil
}

// NamedCommand is one setting of the settings file that runs something.
type NamedCommand struct {
	Setting string `json:"setting"` // setup, copy, merge.check or cleanup
	Command string `json:"command"` // as it runs (a shell string, or an argv); copy's paths
}

// Commands are the settings that run something, in the order they run,
// as the user is shown them before trusting (see shown).
func (s Settings) Commands() []NamedCommand {
	var out []NamedCommand
	if len(s.Copy) > 0 {
		paths := make([]string, len(s.Copy))
		for i, p := range s.Copy {
			paths[i] = shown(p)
		}
		out = append(out, NamedCommand{"copy", strings.Join(paths, ", ")})
	}
	for _, c := range []struct {
		name string
		cmd  Command
	}{{PhaseSetup, s.Setup}, {"merge.check", s.Merge.Check}, {PhaseCleanup, s.Cleanup}} {
		if len(c.cmd) > 0 {
			out = append(out, NamedCommand{c.name, shown(c.cmd.String())})
		}
	}
	return out
}

// shown is s as it is safe to show to someone deciding whether to trust
// it: quoted, with escapes, when it holds anything but visible characters
// and spaces. A terminal escape sequence or a carriage return could
// otherwise hide a command behind a harmless one, and a bidirectional
// override could reorder it on the dashboard.
func shown(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// trustState is the settings' state for running commands.
func (s Settings) trustState() string {
	if len(s.Commands()) == 0 {
		return TrustNotNeeded
	}
	return s.trust.state
}

// mayRun refuses, when the settings file has commands the user has not
// trusted, what is about to run them (at: "task start", "merge"), with
// the commands and how to trust them.
func (s Settings) mayRun(at string) error {
	switch s.trustState() {
	case TrustNotNeeded, TrustTrusted:
		return nil
	}
	return untrusted(s, at)
}

// mayStart refuses a task start that would copy or set up from an
// untrusted file.
func (s Settings) mayStart() error {
	if len(s.Copy) == 0 && len(s.Setup) == 0 {
		return nil
	}
	return s.mayRun("task start")
}

func untrusted(s Settings, at string) error {
	var cmds []string
	for _, c := range s.Commands() {
		cmds = append(cmds, c.Setting+": "+c.Command)
	}
	why := "is not trusted"
	if s.trust.state == TrustChanged {
		why = "changed since you trusted it, and the new version is not trusted"
	}
	return fault.New(fault.Conflict, "%s/%s %s, so its commands do not run at %s (%s)",
		s.trust.top, settingsFile, why, at, strings.Join(cmds, "; ")).
		WithHint("these commands come from the repository; read them, then run `sudocode trust` in " + s.trust.top +
			" (or press Trust in the dashboard's Tasks view) to let this exact file run them, in the sandbox")
}

// ProjectTrust is what `sudocode trust` and the dashboard show of a
// project's settings file.
type ProjectTrust struct {
	Project   string         `json:"project"` // the top of the checkout
	File      string         `json:"file"`    // the settings file's path
	Exists    bool           `json:"exists"`
	SHA256    string         `json:"sha256,omitempty"`
	State     string         `json:"state"` // not_needed, trusted, untrusted or changed
	Commands  []NamedCommand `json:"commands"`
	TrustedAt *time.Time     `json:"trusted_at,omitempty"`
}

// TrustOf reads the settings file of the checkout that holds dir and
// says whether its commands may run for the user of env.
func TrustOf(ctx context.Context, dir string, env userenv.Env) (ProjectTrust, error) {
	pt, _, err := readTrust(ctx, dir, env)
	return pt, err
}

// TrustFile trusts the settings file of the checkout that holds dir as
// it is now. With sha256 set (the digest the user was shown), the file
// must still have those bytes: one that changed in between is refused.
// A file without commands needs no trust and is not recorded. The trust
// is recorded for the user of env.
func TrustFile(ctx context.Context, dir, sha256 string, env userenv.Env) (ProjectTrust, error) {
	pt, b, err := readTrust(ctx, dir, env)
	if err != nil {
		return pt, err
	}
	switch {
	case !pt.Exists:
		return pt, fault.New(fault.NotFound, "%s has no %s: there is nothing to trust", pt.Project, settingsFile)
	case sha256 != "" && sha256 != pt.SHA256:
		return pt, fault.New(fault.Conflict, "%s changed since it was shown (its SHA-256 is now %s); nothing was trusted", pt.File, pt.SHA256).
			WithHint("look at its commands again, then trust it")
	case pt.State == TrustNotNeeded:
		return pt, nil
	}
	st, err := trust.Open(env)
	if err != nil {
		return pt, fault.Wrap(fault.Unavailable, err, "cannot record the trust")
	}
	rec, err := st.Allow(pt.Project, settingsFile, b)
	if err != nil {
		return pt, fault.Wrap(fault.Unavailable, err, "cannot record the trust")
	}
	pt.State, pt.TrustedAt = TrustTrusted, &rec.TrustedAt
	return pt, nil
}

// RevokeTrust forgets the trust given to the settings file of the
// checkout that holds dir, for the user of env; false when there was
// none.
func RevokeTrust(ctx context.Context, dir string, env userenv.Env) (ProjectTrust, bool, error) {
	pt, _, err := readTrust(ctx, dir, env)
	if err != nil {
		return pt, false, err
	}
	st, err := trust.Open(env)
	if err != nil {
		return pt, false, fault.Wrap(fault.Unavailable, err, "cannot change the trusted files")
	}
	ok, err := st.Revoke(pt.Project, settingsFile)
	if err != nil {
		return pt, false, fault.Wrap(fault.Unavailable, err, "cannot change the trusted files")
	}
	if pt.State == TrustTrusted {
		pt.State, pt.TrustedAt = TrustUntrusted, nil
	}
	return pt, ok, nil
}

// readTrust reads the settings file of the checkout holding dir (the
// same top as the orchestrator's: git's) and its bytes, with the trust
// the user of env gave it.
func readTrust(ctx context.Context, dir string, env userenv.Env) (ProjectTrust, []byte, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return ProjectTrust{}, nil, fault.New(fault.Invalid, "%s is not in a git checkout", dir).
			WithHint("run this in the project's checkout")
	}
	if canon, err := trust.Canonical(top); err == nil {
		top = canon
	}
	pt := ProjectTrust{Project: top, File: top + string(os.PathSeparator) + settingsFile, State: TrustNotNeeded, Commands: []NamedCommand{}}
	b, err := readSettingsFile(top)
	if errors.Is(err, os.ErrNotExist) {
		return pt, nil, nil
	}
	if err != nil {
		return pt, nil, err
	}
	s, err := loadSettings(top, env)
	if err != nil {
		return pt, nil, err
	}
	pt.Exists, pt.SHA256 = true, trust.Digest(b)
	if c := s.Commands(); c != nil {
		pt.Commands = c
	}
	pt.State = s.trustState()
	if s.trust.digest != pt.SHA256 { // changed between the two reads
		return pt, nil, fault.New(fault.Conflict, "%s changed while it was read", pt.File).WithHint("try again")
	}
	if pt.State == TrustTrusted {
		pt.TrustedAt = &s.trust.trustedAt
	}
	return pt, b, nil
}
