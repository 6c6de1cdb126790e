package store

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/anchor"
)

// FeedbackInput is new feedback from an issue on a spec, anchored at a
// line or at the first line holding a text (exactly one of the two).
type FeedbackInput struct {
	IssueID, SpecID, Content, Type, Agent string
	Line                                  *int
	Text                                  *string
}

// AddFeedback anchors feedback on a spec.
func (r *Repo) AddFeedback(ctx context.Context, in FeedbackInput) (tracker.Feedback, error) {
	content := strings.TrimSpace(in.Content)
	if content == "" {
		return tracker.Feedback{}, fault.New(fault.Invalid, "feedback content must not be empty")
	}
	typ := tracker.DefaultFeedbackType
	if in.Type != "" {
		var err error
		if typ, err = tracker.ParseEnum("feedback type", in.Type, tracker.FeedbackTypes); err != nil {
			return tracker.Feedback{}, err
		}
	}
	if (in.Line == nil) == (in.Text == nil) {
		return tracker.Feedback{}, fault.New(fault.Invalid, "give exactly one anchor: a line number or a text to find in the spec")
	}
	var out tracker.Feedback
	err := r.Update(ctx, func(t *Tx) error {
		if _, err := t.issue(in.IssueID); err != nil {
			return err
		}
		spec, err := t.spec(in.SpecID)
		if err != nil {
			return err
		}
		body, err := r.readBody(spec.FilePath)
		if err != nil {
			return err
		}
		var a tracker.Anchor
		if in.Line != nil {
			a, err = anchor.New(string(body), *in.Line, t.now)
		} else {
			a, err = anchor.NewAtText(string(body), *in.Text, t.now)
		}
		if err != nil {
			return anchorErr(in.SpecID, err)
		}
		id, _, err := t.newID("feedback", func(h string) string { return tracker.FeedbackID(r.Config.Prefix, h) })
		if err != nil {
			return err
		}
		out = tracker.Feedback{ID: id, IssueID: in.IssueID, SpecID: in.SpecID, Type: typ, Status: tracker.FeedbackOpen,
			Content: content, Agent: in.Agent, Anchor: a, CreatedAt: t.now, UpdatedAt: t.now}
		return t.putFeedback(&out)
	})
	return out, err
}

// anchorErr is the refusal of an anchor on spec specID (anchor's reason).
func anchorErr(specID string, err error) error {
	return fault.New(fault.Invalid, "%s: %v", specID, err).WithHint("read the spec with `sudocode spec show " + specID + "`")
}

// SetFeedbackStatus moves feedback to acknowledged, resolved or wont_fix;
// resolution (a comment or a reason) is kept when given.
func (r *Repo) SetFeedbackStatus(ctx context.Context, id string, st tracker.FeedbackStatus, resolution *string) (tracker.Feedback, error) {
	var out tracker.Feedback
	err := r.Update(ctx, func(t *Tx) error {
		f, err := t.feedback(id)
		if err != nil {
			return err
		}
		f.Status = st
		if res := nonEmpty(resolution); res != nil {
			f.Resolution = res
		}
		f.UpdatedAt = t.now
		out = f
		return t.putFeedback(&f)
	})
	return out, err
}

// RelocateFeedback re-anchors feedback at a line by hand; the anchor's
// original location is kept and its status becomes relocated.
func (r *Repo) RelocateFeedback(ctx context.Context, id string, line int) (tracker.Feedback, error) {
	var out tracker.Feedback
	err := r.Update(ctx, func(t *Tx) error {
		f, err := t.feedback(id)
		if err != nil {
			return err
		}
		spec, err := t.spec(f.SpecID)
		if err != nil {
			return err
		}
		body, err := r.readBody(spec.FilePath)
		if err != nil {
			return err
		}
		a, err := anchor.New(string(body), line, t.now)
		if err != nil {
			return anchorErr(f.SpecID, err)
		}
		a.OriginalLocation = f.Anchor.OriginalLocation
		a.AnchorStatus = tracker.AnchorRelocated
		f.Anchor, f.UpdatedAt = a, t.now
		out = f
		return t.putFeedback(&f)
	})
	return out, err
}

// ShowFeedback returns feedback with where its anchor points now.
func (r *Repo) ShowFeedback(ctx context.Context, id string) (tracker.FeedbackDetail, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.FeedbackDetail{}, err
	}
	f, err := v.feedback(id)
	if err != nil {
		return tracker.FeedbackDetail{}, err
	}
	d := tracker.FeedbackDetail{Feedback: f}
	if f.Anchor.AnchorStatus == tracker.AnchorStale {
		return d, nil
	}
	spec, err := v.spec(f.SpecID)
	if err != nil {
		return d, nil // the spec is gone: no location
	}
	body, err := r.readBody(spec.FilePath)
	if err != nil {
		return d, nil // a body the tracker may not read: no location
	}
	if text, heading, ok := anchor.Line(string(body), f.Anchor.LineNumber); ok {
		d.Location = &tracker.FeedbackLocation{LineNumber: f.Anchor.LineNumber, LineText: text, SectionHeading: heading}
	}
	return d, nil
}
