package mcpx

import (
	"net/url"
	"slices"
)

// OriginAllowed is the one Origin check of every server, the coding
// tools' included: an origin listed in allowed (--allow-origin), or a
// page served from this machine, whose origin is http or https on exactly
// localhost, 127.0.0.1 or [::1] (the coding-tools profile's rule), any
// port. Everything else is refused: other sites, look-alike hosts
// (localhost.attacker.test), other loopback spellings a browser never
// sends for a local page (127.0.0.2, [::ffff:127.0.0.1]), other schemes and
// "null". Browsers send Origin; other clients usually do not, and a
// request without one is not judged here.
func OriginAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}
