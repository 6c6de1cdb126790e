package mcpagent

import (
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// eventSummary is one line saying what e is, cut to max bytes.
func eventSummary(e agent.Event, max int) string {
	var b strings.Builder
	b.WriteString(e.Kind)
	if e.Tool != "" {
		b.WriteString(" " + e.Tool)
	}
	var detail string
	switch e.Kind {
	case agent.KindFileChange:
		detail = strings.Join(e.Files, ", ")
		if detail == "" {
			detail = e.Text // "no changes"
		}
	case agent.KindUsage:
		detail = usageText(e)
	case agent.KindCompletion:
		if e.Success != nil && !*e.Success {
			detail = "failed"
		} else {
			detail = "succeeded"
		}
		if e.Text != "" {
			detail += ": " + e.Text
		}
	default:
		detail = e.Text
	}
	if detail != "" {
		b.WriteString(": ")
		b.WriteString(oneLine(detail))
	}
	return cut(b.String(), max)
}

func usageText(e agent.Event) string {
	var parts []string
	if t := e.Tokens; t != nil {
		parts = append(parts, fmt.Sprintf("tokens in=%d out=%d cache_read=%d cache_write=%d", t.Input, t.Output, t.CacheRead, t.CacheWrite))
	}
	if e.CostUSD != nil {
		parts = append(parts, fmt.Sprintf("cost=$%.4f", *e.CostUSD))
	}
	return strings.Join(parts, " ")
}

// oneLine folds newlines so that a log entry stays on one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ").Replace(s)
}

// cut shortens s to at most max bytes on a rune boundary, marking the cut.
func cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	i := max - len("…")
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// logLine is an event as task://{id}/logs prints it:
// "<seq> <time> <summary>".
func logLine(ev orchestrator.StoredEvent) string {
	return fmt.Sprintf("%d %s %s", ev.Seq, ev.Event.Time.UTC().Format(time.RFC3339Nano), eventSummary(ev.Event, maxLineBytes))
}

// maxLineBytes bounds one log line in resources: a huge tool output is
// cut rather than flooding the reader's context.
const maxLineBytes = 2000
