package natsbus

import (
	"fmt"
	"log/slog"
)

// slogLogger passes the server's warnings and errors to slog; its notices,
// debug and trace lines are routine and dropped.
type slogLogger struct{ l *slog.Logger }

func (g slogLogger) Noticef(string, ...any) {}
func (g slogLogger) Debugf(string, ...any)  {}
func (g slogLogger) Tracef(string, ...any)  {}
func (g slogLogger) Warnf(format string, v ...any) {
	g.l.Warn(fmt.Sprintf(format, v...), "component", "nats-server")
}
func (g slogLogger) Errorf(format string, v ...any) {
	g.l.Error(fmt.Sprintf(format, v...), "component", "nats-server")
}
func (g slogLogger) Fatalf(format string, v ...any) {
	g.l.Error(fmt.Sprintf(format, v...), "component", "nats-server", "fatal", true)
}
