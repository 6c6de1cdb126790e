package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// CookieName is the page's cookie. It holds the dashboard's own secret,
// made at start, never one of the server's tokens: browsers send a host's
// cookies to every port of it, so a page served on another local port
// receives the cookie, and the MCP endpoints (which read only bearer
// tokens) must not be opened by it. It opens this dashboard's routes
// alone, until the server stops.
const CookieName = "sudocode_session"

// PageKeyHeader carries the page's key with every change the page sends
// with its cookie. Browsers send the cookie to every port of the host, so
// a page served on another local port receives it, and a program holding
// it can send any Origin header; the key is handed to the page in the
// address the token redirects to and kept in the page's own storage,
// which no other origin (another port included) can read.
const PageKeyHeader = "X-Sudocode-Page-Key"

// pageKeyOK reports a request that carries the page's key.
func (d *Dashboard) pageKeyOK(r *http.Request) bool {
	k := r.Header.Get(PageKeyHeader)
	return k != "" && subtle.ConstantTimeCompare([]byte(k), []byte(d.pageKey)) == 1
}

// authorized lets a request read. With a configured token (Token or
// CheckToken) every request needs it, or the page's cookie; otherwise
// reading is open and only writes need the write token (see write.go). A
// browser opens /?token=TOKEN once; the answer sets the page's cookie
// (HttpOnly, SameSite=Strict) and redirects to /, so the token leaves the
// address bar and every later request (fetch, EventSource) carries the
// cookie instead.
func (d *Dashboard) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path == "/" && r.URL.Query().Has("token") && d.accepts(r.URL.Query().Get("token")) {
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: d.sessionFor(r.URL.Query().Get("token")), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		// The page's script moves the key to its own storage and out of
		// the address; a fragment the token's address had (a view) stays.
		http.Redirect(w, r, "/?key="+d.pageKey, http.StatusSeeOther)
		return false
	}
	if d.readsOpen() {
		return true
	}
	if ok, _ := d.credential(r); ok {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="sudocode"`)
	http.Error(w, "unauthorized: open the address `sudocode serve` printed (/?token=…) once in this browser, or send Authorization: Bearer <token>", http.StatusUnauthorized)
	return false
}

// readsOpen reports a dashboard anyone who can reach it may read: no token
// is configured (a write token alone guards only writes).
func (d *Dashboard) readsOpen() bool { return d.opts.Token == "" && d.opts.CheckToken == nil }

// credential reports a request that carries one of the server's tokens as
// a bearer header, or the page's cookie (viaCookie). A bearer header is
// read first: a script's token is not mistaken for the page.
func (d *Dashboard) credential(r *http.Request) (ok, viaCookie bool) {
	if tok, found := mcpx.BearerToken(r.Header.Get("Authorization")); found {
		return d.accepts(tok), false
	}
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" || !d.grants() {
		return false, false
	}
	if subtle.ConstantTimeCompare([]byte(c.Value), []byte(d.session)) == 1 {
		return true, true
	}
	_, ok = d.pageClient(r)
	return ok, ok
}

// sessionFor is the cookie for a page opened with tok: on a server whose
// tokens name clients, one of that client's own (kept in memory, so it
// lasts until the server stops), else the dashboard's one secret.
func (d *Dashboard) sessionFor(tok string) string {
	if d.opts.ClientOf == nil {
		return d.session
	}
	name, ok := d.opts.ClientOf(tok)
	if !ok {
		return d.session
	}
	v := rand.Text()
	d.pagesMu.Lock()
	d.pages[v] = name
	d.pagesMu.Unlock()
	return v
}

// pageClient is the client whose token opened the page that sent r.
func (d *Dashboard) pageClient(r *http.Request) (string, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return "", false
	}
	d.pagesMu.Lock()
	defer d.pagesMu.Unlock()
	name, ok := d.pages[c.Value]
	return name, ok
}

// grants reports a dashboard that hands out its cookie: one with a token to
// exchange for it.
func (d *Dashboard) grants() bool {
	return d.opts.Token != "" || d.opts.WriteToken != "" || d.opts.CheckToken != nil
}

// accepts reports whether tok is one of the server's tokens.
func (d *Dashboard) accepts(tok string) bool {
	if tok == "" {
		return false
	}
	eq := func(want string) bool {
		return want != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(want)) == 1
	}
	return eq(d.opts.Token) || eq(d.opts.WriteToken) || (d.opts.CheckToken != nil && d.opts.CheckToken(tok))
}
