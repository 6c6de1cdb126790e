package mcpx

import "context"

type callerKey struct{}

// WithCaller returns ctx carrying the name of the client making a call.
func WithCaller(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, callerKey{}, name)
}

// CallerFrom is the name of the client making the call ctx belongs to:
// the name of its bearer token in the token file, "token" for the single
// --token, and on stdio (or HTTP without tokens) the local user the server
// runs for (SUDOCODE_ACTOR, else $USER). Tool handlers record it as the
// actor of what they change. It is "" when nothing set it (a server used
// without mcpx's transports), and callers then fall back to their own
// default.
func CallerFrom(ctx context.Context) string {
	name, _ := ctx.Value(callerKey{}).(string)
	return name
}
