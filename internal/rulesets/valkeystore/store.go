// Package valkeystore keeps rulesets in Valkey (or Redis, or a Valkey
// Cluster) in the layout the MCP Ruleset Server specification fixes
// (docs/servers.md#ruleset-model): one hash per ruleset at
// "ruleset:{name}" with the fields description, tags (a JSON array),
// markdown, created_at and last_modified (RFC3339 UTC), plus globs, always
// and targets only while a ruleset has that scope, and beside it the
// ruleset's history, a list of JSON changes, newest first, at
// "{ruleset:name}:history" (HistoryKey).
package valkeystore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// KeyPrefix starts every ruleset key.
const KeyPrefix = "ruleset:"

var (
	//go:embed upsert.lua
	upsertSrc string
	//go:embed create.lua
	createSrc string
	//go:embed delete.lua
	deleteSrc string
	//go:embed record.lua
	recordSrc string

	// Each script records its change with record.lua's function.
	upsertScript = valkey.NewLuaScript(recordSrc + upsertSrc)
	createScript = valkey.NewLuaScript(recordSrc + createSrc)
	deleteScript = valkey.NewLuaScript(recordSrc + deleteSrc)
)

// HistoryKey is the list of name's changes. Its hash tag is the ruleset's
// key, so that both are in one slot of a cluster and a script can change
// them together; it starts with "{", so SCAN MATCH ruleset:* never sees it.
func HistoryKey(name string) string { return "{" + KeyPrefix + name + "}:history" }

// historyLen is MaxHistory as a script argument.
var historyLen = strconv.Itoa(rulesets.MaxHistory)

// scanCount is SCAN's COUNT hint: large enough that 10,000 keys take a few
// round trips, small enough not to stall the server.
const scanCount = 1000

// Store is a rulesets.Store on Valkey.
type Store struct {
	c       valkey.Client
	timeout time.Duration
}

// DefaultTimeout bounds every store call: a Valkey that stopped answering
// fails the call instead of hanging it.
const DefaultTimeout = 5 * time.Second

// dialTimeout bounds one connection attempt; a refused connection fails
// at once whatever it is.
const dialTimeout = 2 * time.Second

var _ rulesets.Store = (*Store)(nil)

// Config says how to reach Valkey. URL, when set, wins over Addr.
type Config struct {
	URL      string // redis://, rediss://, valkey:// or unix:// URL
	Addr     string // host:port
	Username string
	Password string
	Timeout  time.Duration // per store call; 0 is DefaultTimeout
}

// Open connects and checks the server answers. Its error text is the
// specification's "failed to connect to Valkey: …".
func Open(ctx context.Context, cfg Config) (*Store, error) {
	opt := valkey.ClientOption{InitAddress: []string{cfg.Addr}}
	if cfg.URL != "" {
		u := cfg.URL
		if rest, ok := strings.CutPrefix(u, "valkey://"); ok {
			u = "redis://" + rest
		}
		var err error
		if opt, err = valkey.ParseURL(u); err != nil {
			return nil, fault.Wrap(fault.Invalid, err, "failed to connect to Valkey")
		}
	}
	if cfg.Username != "" {
		opt.Username = cfg.Username
	}
	if cfg.Password != "" {
		opt.Password = cfg.Password
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	opt.DisableCache = true
	// A read is retried once, at once, on a new connection (the one it
	// used may have died with a restarted Valkey), never again: a down
	// Valkey answers at once instead of at the deadline, and each call
	// dials again, so the store recovers by itself when Valkey is back.
	opt.RetryDelay = retryOnce
	// Pipelined connections keep a reader running, so a connection that
	// the server closed is noticed and replaced before the next call
	// (writes are never retried: they must not meet a dead connection).
	opt.AlwaysPipelining = true
	opt.Dialer.Timeout = min(dialTimeout, cfg.Timeout)
	opt.ConnWriteTimeout = cfg.Timeout
	c, err := valkey.NewClient(opt)
	if err != nil {
		return nil, connectErr(err, cfg.Timeout)
	}
	s := &Store{c: c, timeout: cfg.Timeout}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
		c.Close()
		return nil, connectErr(err, cfg.Timeout)
	}
	return s, nil
}

// retryOnce is valkey-go's retry policy: one immediate retry, then none
// (a negative delay stops retrying).
func retryOnce(attempts int, _ valkey.Completed, _ error) time.Duration {
	if attempts <= 1 {
		return 0
	}
	return -1
}

// bound gives one store call its deadline.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// Close disconnects.
func (s *Store) Close() error {
	s.c.Close()
	return nil
}

// Get implements rulesets.Store.
func (s *Store) Get(ctx context.Context, name string) (rulesets.Ruleset, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	vals, err := s.c.Do(ctx, s.c.B().Hmget().Key(KeyPrefix+name).
		Field("description", "tags", "markdown", "created_at", "last_modified", "globs", "always", "targets").Build()).ToArray()
	if err != nil {
		return rulesets.Ruleset{}, storeErr(err, s.timeout)
	}
	f, ok := hashFields(vals)
	if !ok {
		return rulesets.Ruleset{}, rulesets.NotFound(name)
	}
	r := rulesets.Ruleset{Name: name, Description: f[0], Markdown: f[2]}
	rec := rulesets.Record{Tags: f[1], CreatedAt: f[3], LastModified: f[4], Globs: f[5], Always: f[6], Targets: f[7]}
	if err := rec.DecodeRuleset(&r); err != nil {
		return rulesets.Ruleset{}, err
	}
	return r, nil
}

// Upsert implements rulesets.Store with one Lua script, so the check for
// existence and the write are atomic.
func (s *Store) Upsert(ctx context.Context, p rulesets.Patch, now time.Time) (bool, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	args := []string{rulesets.Timestamp(now), "0", "", "0", "", "0", ""}
	if p.Description != nil {
		args[1], args[2] = "1", *p.Description
	}
	if p.Markdown != nil {
		args[3], args[4] = "1", *p.Markdown
	}
	if p.SetTags {
		args[5], args[6] = "1", rulesets.EncodeTags(p.Tags)
	}
	created, updated := rulesets.PatchChanges(p, now)
	args = append(args, rulesets.EncodeChange(created), rulesets.EncodeChange(updated), historyLen)
	set, vals := rulesets.PatchScope(p)
	for i := range set {
		has := "0"
		if set[i] {
			has = "1"
		}
		args = append(args, has, vals[i])
	}
	n, err := upsertScript.Exec(ctx, s.c, []string{KeyPrefix + p.Name, HistoryKey(p.Name)}, args).AsInt64()
	if err != nil {
		return false, storeErr(err, s.timeout)
	}
	switch n {
	case -1:
		return false, rulesets.ErrDescriptionRequired
	case -2:
		return false, rulesets.ErrMarkdownRequired
	}
	return n == 1, nil
}

// Create implements rulesets.Store.
func (s *Store) Create(ctx context.Context, r rulesets.Ruleset, by string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	n, err := createScript.Exec(ctx, s.c, []string{KeyPrefix + r.Name, HistoryKey(r.Name)}, append([]string{
		r.Description, rulesets.EncodeTags(r.Tags), r.Markdown, rulesets.Timestamp(r.CreatedAt), rulesets.Timestamp(r.LastModified),
		rulesets.EncodeChange(rulesets.CreateChange(r, by)), historyLen,
	}, rulesets.EncodeScope(r.Scope)...)).AsInt64()
	if err != nil {
		return storeErr(err, s.timeout)
	}
	if n == 0 {
		return fault.New(fault.Conflict, "ruleset '%s' already exists", r.Name)
	}
	return nil
}

// Delete implements rulesets.Store.
func (s *Store) Delete(ctx context.Context, name, by string, now time.Time) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	n, err := deleteScript.Exec(ctx, s.c, []string{KeyPrefix + name, HistoryKey(name)}, []string{
		rulesets.EncodeChange(rulesets.DeleteChange(by, now)), historyLen,
	}).AsInt64()
	if err != nil {
		return storeErr(err, s.timeout)
	}
	if n == 0 {
		return rulesets.NotFound(name)
	}
	return nil
}

// History implements rulesets.Store.
func (s *Store) History(ctx context.Context, name string, limit int) ([]rulesets.Change, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	encs, err := s.c.Do(ctx, s.c.B().Lrange().Key(HistoryKey(name)).Start(0).Stop(int64(limit)-1).Build()).AsStrSlice()
	if err != nil {
		return nil, storeErr(err, s.timeout)
	}
	out := make([]rulesets.Change, 0, len(encs))
	for _, enc := range encs {
		c, err := rulesets.DecodeChange(name, enc)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Search implements rulesets.Store: the server filters keys with SCAN MATCH,
// then one pipelined HMGET per match fetches the summaries.
func (s *Store) Search(ctx context.Context, pattern string) ([]rulesets.Summary, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	names, err := s.scan(ctx, KeyPrefix+EscapeGlob(pattern))
	if err != nil {
		return nil, err
	}
	out := make([]rulesets.Summary, 0, len(names))
	if len(names) == 0 {
		return out, nil
	}
	cmds := make(valkey.Commands, len(names))
	for i, n := range names {
		cmds[i] = s.c.B().Hmget().Key(KeyPrefix+n).Field("description", "tags", "created_at", "last_modified").Build()
	}
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		vals, err := res.ToArray()
		if err != nil {
			if _, isReply := valkey.IsValkeyErr(err); isReply { // e.g. WRONGTYPE: a foreign key under our prefix
				continue
			}
			return nil, storeErr(err, s.timeout)
		}
		f, ok := hashFields(vals)
		if !ok {
			continue // deleted between SCAN and HMGET
		}
		r := rulesets.Summary{Name: names[i], Description: f[0]}
		if err := (rulesets.Record{Tags: f[1], CreatedAt: f[2], LastModified: f[3]}).Decode(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	rulesets.SortSummaries(out)
	return out, nil
}

// SearchPage implements rulesets.Store. SCAN's order is the hash table's,
// not list order, and its cursor is not stable across rehashing, so a page
// is cut from the sorted matches: SCAN MATCH finds every matching name,
// one pipelined HMGET of created_at per name gives the keys, and the page
// is the keys after the position in (created_at, name) order; only the
// page's summaries are then fetched. Each page costs the scan of the
// matches (as a whole search does), and its keys are exact, so the walk
// keeps the guarantee of keyset pagination (see rulesets.PageKey).
func (s *Store) SearchPage(ctx context.Context, pattern string, after *rulesets.PageKey, limit int) (rulesets.Page, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	names, err := s.scan(ctx, KeyPrefix+EscapeGlob(pattern))
	if err != nil || len(names) == 0 {
		return rulesets.Page{Items: []rulesets.Summary{}}, err
	}
	cmds := make(valkey.Commands, len(names))
	for i, n := range names {
		cmds[i] = s.c.B().Hget().Key(KeyPrefix + n).Field("created_at").Build()
	}
	keys := make([]rulesets.PageKey, 0, len(names))
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		raw, err := res.ToString()
		if err != nil {
			if valkey.IsValkeyNil(err) {
				continue // deleted between SCAN and HGET
			}
			if _, isReply := valkey.IsValkeyErr(err); isReply { // a foreign key under our prefix
				continue
			}
			return rulesets.Page{}, storeErr(err, s.timeout)
		}
		t, err := rulesets.ParseTimestamp(raw)
		if err != nil {
			return rulesets.Page{}, fault.Wrap(fault.Internal, err, "corrupt ruleset record '"+names[i]+"'")
		}
		keys = append(keys, rulesets.PageKey{CreatedAt: rulesets.Timestamp(t), Name: names[i]})
	}
	p := rulesets.Page{Total: len(keys), Items: []rulesets.Summary{}}
	if after != nil {
		keys = slices.DeleteFunc(keys, func(k rulesets.PageKey) bool { return k.Compare(*after) <= 0 })
	}
	slices.SortFunc(keys, rulesets.PageKey.Compare)
	p.More = len(keys) > limit
	keys = keys[:min(len(keys), limit)]
	if len(keys) == 0 {
		return p, nil
	}
	cmds = make(valkey.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.c.B().Hmget().Key(KeyPrefix+k.Name).Field("description", "tags", "created_at", "last_modified").Build()
	}
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		vals, err := res.ToArray()
		if err != nil {
			if _, isReply := valkey.IsValkeyErr(err); isReply {
				continue
			}
			return rulesets.Page{}, storeErr(err, s.timeout)
		}
		f, ok := hashFields(vals)
		if !ok {
			continue // deleted since
		}
		r := rulesets.Summary{Name: keys[i].Name, Description: f[0]}
		if err := (rulesets.Record{Tags: f[1], CreatedAt: f[2], LastModified: f[3]}).Decode(&r); err != nil {
			return rulesets.Page{}, err
		}
		p.Items = append(p.Items, r)
	}
	return p, nil
}

// Names implements rulesets.Store.
func (s *Store) Names(ctx context.Context) ([]string, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.scan(ctx, KeyPrefix+"*")
}

// scan runs SCAN MATCH on every node (every primary of a cluster; replicas'
// duplicates are dropped) and returns the sorted ruleset names.
func (s *Store) scan(ctx context.Context, match string) ([]string, error) {
	seen := map[string]struct{}{}
	for _, node := range s.c.Nodes() {
		var cursor uint64
		for {
			e, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(match).Count(scanCount).Build()).AsScanEntry()
			if err != nil {
				return nil, storeErr(err, s.timeout)
			}
			for _, k := range e.Elements {
				name := strings.TrimPrefix(k, KeyPrefix)
				if rulesets.ValidateName(name) == nil {
					seen[name] = struct{}{}
				}
			}
			if cursor = e.Cursor; cursor == 0 {
				break
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// EscapeGlob escapes the characters that Valkey's glob treats as special
// beyond '*' and '?', so that they match themselves.
func EscapeGlob(pattern string) string {
	var b strings.Builder
	for _, r := range pattern {
		if r == '[' || r == ']' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hashFields reads an HMGET reply; ok is false when the hash does not exist
// (every field nil).
func hashFields(vals []valkey.ValkeyMessage) (f []string, ok bool) {
	f = make([]string, len(vals))
	for i, v := range vals {
		if s, err := v.ToString(); err == nil {
			f[i], ok = s, true
		}
	}
	return f, ok
}

// storeErr is a failed call's error. A reply error (the server answered)
// names Valkey; anything else means Valkey could not be reached or did
// not answer, which is the specification's connection error.
func storeErr(err error, timeout time.Duration) error {
	if _, isReply := valkey.IsValkeyErr(err); isReply {
		return fault.Wrap(fault.Unavailable, err, "Valkey")
	}
	return connectErr(err, timeout)
}

// connectErr is the specification's "failed to connect to Valkey: …".
func connectErr(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v", timeout)
	}
	return fault.Wrap(fault.Unavailable, err, "failed to connect to Valkey").
		WithHint("check that Valkey runs and VALKEY_HOST/VALKEY_PORT (or VALKEY_URL) point at it; the server reconnects by itself")
}
