package agent

import "time"

// StderrReader is implemented by a Parser whose CLI reports some events
// only on stderr (Codex logs a patch its sandbox rejected there, and
// nothing in its JSON stream). The runner logs every stderr line as a
// KindStderr event and adds what StderrLine returns. StderrLine may run
// concurrently with Line, so it must not touch the parser's state.
type StderrReader interface {
	StderrLine(line []byte, now time.Time) []Event
}
