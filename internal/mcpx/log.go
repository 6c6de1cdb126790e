package mcpx

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewLogger returns a text logger on w (stderr in the binaries: stdout
// belongs to JSON-RPC on stdio) at the named level.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// SDKLogger is logger for the MCP SDK's own messages, which are chatty at
// info level: they show only when logger is at debug.
func SDKLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(floor{logger.Handler()})
}

type floor struct{ slog.Handler }

func (f floor) Enabled(ctx context.Context, l slog.Level) bool {
	if f.Handler.Enabled(ctx, slog.LevelDebug) {
		return true
	}
	return l >= slog.LevelWarn && f.Handler.Enabled(ctx, l)
}
func (f floor) WithAttrs(a []slog.Attr) slog.Handler { return floor{f.Handler.WithAttrs(a)} }
func (f floor) WithGroup(n string) slog.Handler      { return floor{f.Handler.WithGroup(n)} }

// Notify logs an event to the server's log and, when the client asked for
// log messages (logging/setLevel), to the client as a notification.
func Notify(ctx context.Context, logger *slog.Logger, ss *mcp.ServerSession, name, msg string, args ...any) {
	logger.InfoContext(ctx, msg, args...)
	if ss == nil {
		return
	}
	data := map[string]any{"message": msg}
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok {
			data[k] = args[i+1]
		}
	}
	//lint:ignore SA1019 MCP logging stays for clients of protocol versions before its deprecation (SEP-2577); moving to its replacement is separate work
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: name, Data: data})
}
