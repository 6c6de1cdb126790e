package mcpx

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SingleTokenCaller is the caller name of the single token (--token,
// SUDOCODE_TOKEN): one secret shared by everyone says nothing more.
const SingleTokenCaller = "token"

// DefaultReloadInterval is how often, at most, a token file is checked for
// a change (its size, modification time or identity).
const DefaultReloadInterval = time.Second

// Auth is the set of bearer tokens an HTTP server accepts, each with the
// name of its caller: the single token (caller "token") and the lines of a
// token file, which is read again when it changes. Tokens are compared in
// constant time, through their SHA-256 so that not even their length
// shows. A nil *Auth accepts no token and is not Enabled.
type Auth struct {
	single    [sha256.Size]byte
	hasSingle bool
	file      string
	logger    *slog.Logger
	interval  time.Duration

	entries atomic.Pointer[[]tokenEntry]
	checked atomic.Int64 // when the file was last looked at, in Unix ns
	mu      sync.Mutex   // one reload at a time
	loaded  os.FileInfo  // the file the entries were read from; nil when none
}

type tokenEntry struct {
	name   string
	sum    [sha256.Size]byte
	grants Grants // the words after NAME TOKEN (GrantsOf)
}

// callerName is what a client may be called in a token file: it is
// recorded as the author of changes and in audit lines.
var callerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`) })

// NewAuth returns the tokens of token (the single one; "" for none) and
// of the token file at path ("" for none); nil when both are empty. The
// file holds one "NAME TOKEN [admin] [command]" per line (the grants, see
// GrantsOf); blank lines and lines starting with # are ignored. At start
// any problem with the file is an error; later, a line that cannot be read
// is skipped and logged, and a file that is gone accepts none of its
// tokens until it is back.
func NewAuth(token, path string, logger *slog.Logger) (*Auth, error) {
	if token == "" && path == "" {
		return nil, nil
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Auth{file: path, logger: logger, interval: DefaultReloadInterval}
	if token != "" {
		a.single, a.hasSingle = sha256.Sum256([]byte(token)), true
	}
	a.entries.Store(&[]tokenEntry{})
	if path != "" {
		if err := a.reload(true); err != nil {
			return nil, err
		}
		a.checked.Store(time.Now().UnixNano())
	}
	return a, nil
}

// Enabled reports whether requests must carry a token.
func (a *Auth) Enabled() bool { return a != nil }

// NamesClients reports whether a token file names the clients (rather
// than there being one client: everyone, or the holders of the single
// token).
func (a *Auth) NamesClients() bool { return a != nil && a.file != "" }

// Authenticate returns the caller named by the request's bearer token, and
// false when it carries none that is accepted.
func (a *Auth) Authenticate(r *http.Request) (string, bool) {
	token, ok := BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return "", false
	}
	return a.Check(token)
}

// Check returns the caller a token belongs to, and false for a token that
// is not accepted.
func (a *Auth) Check(token string) (string, bool) {
	if a == nil || token == "" {
		return "", false
	}
	a.refresh()
	sum := sha256.Sum256([]byte(token))
	name, found := "", 0
	if a.hasSingle && subtle.ConstantTimeCompare(sum[:], a.single[:]) == 1 {
		name, found = SingleTokenCaller, 1
	}
	// Every entry is compared, the match or not, so the time taken does
	// not say where (or whether) a token is in the file.
	for _, e := range *a.entries.Load() {
		if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
			name, found = e.name, 1
		}
	}
	return name, found == 1
}

// Callers are the names the token file gives, in its order, once each.
func (a *Auth) Callers() []string {
	if a == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, e := range *a.entries.Load() {
		if !seen[e.name] {
			seen[e.name] = true
			names = append(names, e.name)
		}
	}
	return names
}

// BearerToken extracts the token of an Authorization header value,
// exactly "Bearer TOKEN".
func BearerToken(header string) (string, bool) {
	token, ok := strings.CutPrefix(header, "Bearer ")
	return token, ok && token != ""
}

// refresh reads the token file again when it changed, looking at most once
// per interval; the request that looks pays for a stat, the others use the
// tokens as they are.
func (a *Auth) refresh() {
	if a.file == "" {
		return
	}
	now := time.Now().UnixNano()
	last := a.checked.Load()
	if now-last < int64(a.interval) || !a.checked.CompareAndSwap(last, now) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reload(false)
}

// reload reads the token file if it is not the one loaded. Called with mu
// held (or before a is shared).
func (a *Auth) reload(initial bool) error {
	st, err := os.Stat(a.file)
	if err != nil {
		if initial {
			return fmt.Errorf("token file: %w", err)
		}
		if a.loaded != nil {
			a.logger.Error("token file unreadable: none of its tokens is accepted until it is back", "file", a.file, "err", err)
			a.entries.Store(&[]tokenEntry{})
			a.loaded = nil
		}
		return nil
	}
	if a.loaded != nil && os.SameFile(st, a.loaded) && st.ModTime().Equal(a.loaded.ModTime()) && st.Size() == a.loaded.Size() {
		return nil
	}
	data, err := os.ReadFile(a.file)
	if err != nil {
		if initial {
			return fmt.Errorf("token file: %w", err)
		}
		a.logger.Error("token file unreadable: none of its tokens is accepted until it is back", "file", a.file, "err", err)
		a.entries.Store(&[]tokenEntry{})
		a.loaded = nil
		return nil
	}
	entries, problems := parseTokenFile(data)
	if initial && len(problems) > 0 {
		return fmt.Errorf("token file %s: %w", a.file, errors.Join(problems...))
	}
	for _, p := range problems {
		a.logger.Error("token file: line skipped", "file", a.file, "problem", p)
	}
	if st.Mode().Perm()&0o077 != 0 {
		a.logger.Warn("token file is readable by other users: chmod 600 it", "file", a.file)
	}
	a.entries.Store(&entries)
	a.loaded = st
	a.logger.Info("token file loaded", "file", a.file, "tokens", len(entries), "clients", len(a.Callers()))
	return nil
}

// parseTokenFile reads "NAME TOKEN [GRANT…]" lines; what it cannot use it reports
// (never quoting a token).
func parseTokenFile(data []byte) ([]tokenEntry, []error) {
	var entries []tokenEntry
	var problems []error
	firstLine := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) < 2:
			problems = append(problems, fmt.Errorf("line %d: want NAME TOKEN [admin] [command], got %d field(s)", n, len(fields)))
			continue
		case !callerName().MatchString(fields[0]):
			problems = append(problems, fmt.Errorf("line %d: invalid name %q: letters, digits and . _ @ + - only, up to 64", n, fields[0]))
			continue
		case fields[0] == SingleTokenCaller:
			// It would share the operator's tasks and grants (GrantsOf).
			problems = append(problems, fmt.Errorf("line %d: the name %q is the single --token's: give this client another", n, SingleTokenCaller))
			continue
		}
		grants, err := parseGrants(fields[2:])
		if err != nil {
			problems = append(problems, fmt.Errorf("line %d: %w", n, err))
			continue
		}
		sum := sha256.Sum256([]byte(fields[1]))
		if first, dup := firstLine[sum]; dup {
			problems = append(problems, fmt.Errorf("line %d: the same token as line %d (a token names one client)", n, first))
			continue
		}
		firstLine[sum] = n
		entries = append(entries, tokenEntry{name: fields[0], sum: sum, grants: grants})
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, err)
	}
	if entries == nil {
		entries = []tokenEntry{}
	}
	return entries, problems
}
