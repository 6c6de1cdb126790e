package natsbus

import (
	"errors"
	"fmt"
	"log/slog"
)

// slogLogger passes the server's warnings and errors to slog; its notices,
// debug and trace lines are routine and dropped. It also hands Start the
// first fatal error: nats-server only logs one (a port in use, say) and
// goes on running, never ready.
type slogLogger struct {
	l     *slog.Logger // nil: nothing is logged
	fatal chan<- error // buffered; the first fatal error
}

func (g slogLogger) Noticef(string, ...any) {}
func (g slogLogger) Debugf(string, ...any)  {}
func (g slogLogger) Tracef(string, ...any)  {}
func (g slogLogger) Warnf(format string, v ...any) {
	if g.l != nil {
		g.l.Warn(fmt.Sprintf(format, v...), "component", "nats-server")
	}
}
func (g slogLogger) Errorf(format string, v ...any) {
	if g.l != nil {
		g.l.Error(fmt.Sprintf(format, v...), "component", "nats-server")
	}
}
func (g slogLogger) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if g.l != nil {
		g.l.Error(msg, "component", "nats-server", "fatal", true)
	}
	select {
	case g.fatal <- errors.New(msg):
	default: // one is enough
	}
}
