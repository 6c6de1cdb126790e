package coding

import (
	"context"
	"encoding/json"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// MCP 2026-07-28 has no handshake: every request carries its protocol
// version (with the client's name and capabilities) in its _meta, and a
// client learns the server with server/discover. The profile's rules
// (§3.4: initialize, negotiating down to 2025-06-18) stay as they are for
// the clients that shake hands; a request that names 2026-07-28 is served
// on its own, with no session and no initialize, as the reference server
// serves it.

// supportedVersions are the revisions server/discover offers, newest first.
var supportedVersions = []string{mcpx.ModernProtocol, ProtocolVersion}

// JSON-RPC error codes of 2026-07-28.
const (
	codeHeaderMismatch     = -32020 // the HTTP header and the message disagree
	codeUnsupportedVersion = -32022 // a protocol version the server does not speak
)

// metaProtocolVersion is the _meta key a request's protocol version is in.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

type headerVersionKey struct{}

// withHeaderVersion marks ctx with the MCP-Protocol-Version header of an
// HTTP request, which a 2026-07-28 request must carry and match.
func withHeaderVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, headerVersionKey{}, &v)
}

// modernVersion is the protocol version params' _meta names ("" when it
// names none: a handshake client's request), or the error that refuses
// it.
func modernVersion(ctx context.Context, params json.RawMessage) (string, *response) {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	json.Unmarshal(orEmpty(params), &p)
	raw, named := p.Meta[metaProtocolVersion]
	header, overHTTP := ctx.Value(headerVersionKey{}).(*string)
	if !named {
		if overHTTP && *header == mcpx.ModernProtocol {
			return "", errorResponse(nil, codeInvalidParams, "Invalid params: a "+*header+" request carries _meta."+metaProtocolVersion, nil)
		}
		return "", nil
	}
	v, _ := raw.(string)
	if v != mcpx.ModernProtocol {
		return "", errorResponse(nil, codeUnsupportedVersion, "Unsupported MCP protocol version",
			map[string]any{"supported": supportedVersions, "requested": raw})
	}
	if overHTTP && *header != v {
		return "", errorResponse(nil, codeHeaderMismatch, "Header mismatch: MCP-Protocol-Version must repeat _meta."+metaProtocolVersion+" ("+v+")", nil)
	}
	return v, nil
}

// discover answers server/discover: the revisions, capabilities and
// instructions, which hold for the life of the process.
func (s *Server) discover() any {
	init, _ := s.initialize(&conn{}, nil)
	r := init.(map[string]any)
	return modernResult(map[string]any{
		"supportedVersions": supportedVersions,
		"capabilities":      r["capabilities"],
		"instructions":      r["instructions"],
		"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": r["serverInfo"]},
	}, true)
}

// modernResult marks a 2026-07-28 result complete and, for what stays the
// same for the life of the process (tools/list, server/discover), says
// clients may cache it; the hint is a hint: a client that re-fetches gets
// the same answer.
func modernResult(r any, fixed bool) any {
	m, ok := r.(map[string]any)
	if !ok {
		return r
	}
	m["resultType"] = "complete"
	if fixed {
		m["ttlMs"] = fixedTTLMillis
		m["cacheScope"] = "public"
	}
	return m
}

// fixedTTLMillis is how long a client may keep what never changes while
// the process runs: an hour, after which a restarted server (a new
// version, view_image turned on) is seen.
const fixedTTLMillis = 3600 * 1000
