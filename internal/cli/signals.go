package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is done when the process is asked to stop (SIGINT,
// SIGTERM): a server then shuts down cleanly. It lasts as long as the
// process. Only a binary's main sets it up, as the process's signals are
// not one command's: commands run in-process (tests) get their context
// from the caller.
func SignalContext() context.Context {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx
}
