package fault

// Envelope is the one JSON body of an error wherever one is printed: the
// CLI's --json on stderr, a tracker tool's structured error, the
// dashboard's API. {"error": {"code", "message", "hint"}}, hint null when
// there is none.
type Envelope struct {
	Error Body `json:"error"`
}

// Body is the inside of an Envelope.
type Body struct {
	Code    Code    `json:"code" jsonschema:"What kind of failure: invalid_argument, not_found, conflict, unavailable, internal, unauthenticated or permission_denied"`
	Message string  `json:"message" jsonschema:"What went wrong"`
	Hint    *string `json:"hint" jsonschema:"What to do next, or null"`
}

// EnvelopeOf is err's envelope: its code, its text and its hint.
func EnvelopeOf(err error) Envelope {
	b := Body{Code: CodeOf(err), Message: err.Error()}
	if h := HintOf(err); h != "" {
		b.Hint = &h
	}
	return Envelope{Error: b}
}
