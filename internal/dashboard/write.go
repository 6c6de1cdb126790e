package dashboard

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// writeRoutes are the page's actions. Each one calls the code MCP and the
// CLI call, behind the same guard.
func (d *Dashboard) writeRoutes(m *http.ServeMux) {
	d.issueWrites(m)
	d.commentWrites(m)
	d.specWrites(m)
	d.rulesetWrites(m)
	d.taskWrites(m)
	d.reviewRoutes(m)
}

// write guards a handler that changes something. It needs one of the
// server's tokens as a bearer header (scripts), or the page's cookie
// (session.go) — then also the page's own Origin (or one configured with
// --allow-origin). A loopback page may read where reading is open, as
// every server allows it, but a cookie is sent to every port of the host,
// so another local page must not write with it. The body must be JSON,
// which a plain HTML form cannot send.
func (d *Dashboard) write(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, viaCookie := d.credential(r)
		if !ok {
			fail(w, fault.New(fault.Unauthenticated, "this page is read-only: changes need the server's token").
				WithHint(d.writeAccess(r)))
			return
		}
		if viaCookie && (!d.ownOrigin(r) || !d.pageKeyOK(r)) {
			fail(w, fault.New(fault.PermissionDenied, "a change sent with the page's cookie must come from the dashboard page itself (its Origin header and its key)").
				WithHint("reopen the address `sudocode serve` printed (/?token=…) and send it from that page, or send Authorization: Bearer <token> instead of the cookie"))
			return
		}
		if r.Method != http.MethodDelete || r.ContentLength > 0 {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				writeError(w, http.StatusUnsupportedMediaType, fault.New(fault.Invalid, "send the change as JSON (Content-Type: application/json)"))
				return
			}
		}
		h(w, r)
	}
}

// ownOrigin reports a request whose Origin is the page's own (its scheme
// and the Host it was sent to) or one the server was configured to allow.
func (d *Dashboard) ownOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	if slices.Contains(d.opts.AllowedOrigins, origin) {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == scheme && u.Host == r.Host && u.Path == ""
}

// writeAccess tells a reader without the token how to get write access.
func (d *Dashboard) writeAccess(r *http.Request) string {
	if d.opts.Token == "" && d.opts.WriteToken == "" && d.opts.CheckToken == nil {
		return "this dashboard was started without a token, so it only shows; `sudocode serve` makes one and prints the address to open"
	}
	return "open the address `sudocode serve` printed at start (http://" + r.Host + "/?token=…) once in this browser, " +
		"or send Authorization: Bearer <token>"
}

// decode reads a request's JSON body into v, refusing unknown fields so a
// misspelt field is an error, not a silent no-op.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fault.New(fault.Invalid, "the request is larger than %d bytes", mbe.Limit)
		}
		return fault.New(fault.Invalid, "the request is not the JSON expected: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// changed answers a write and tells every open page at once, before the
// file watcher would notice.
func (d *Dashboard) changed(w http.ResponseWriter, topic string, status int, v any) {
	d.Changed(topic)
	writeJSON(w, status, v)
}
