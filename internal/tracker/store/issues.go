package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// IssueInput is a new issue. Empty Type and nil Priority take the defaults.
type IssueInput struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Priority    *int     `json:"priority"`
	Assignee    *string  `json:"assignee"`
	Parent      *string  `json:"parent"`
	Tags        []string `json:"tags"`
	Estimate    *int     `json:"estimate"`
}

// CreateIssue adds an issue; with a parent, also the parent-child link.
func (r *Repo) CreateIssue(ctx context.Context, in IssueInput) (tracker.Issue, error) {
	out, err := r.CreateIssues(ctx, []IssueInput{in})
	if err != nil {
		return tracker.Issue{}, err
	}
	return out[0], nil
}

// CreateIssues adds several issues in one change: all or none. An error
// names the input by its position.
func (r *Repo) CreateIssues(ctx context.Context, ins []IssueInput) ([]tracker.Issue, error) {
	if len(ins) == 0 {
		return nil, fault.New(fault.Invalid, "no issues to create")
	}
	out := make([]tracker.Issue, 0, len(ins))
	err := r.Update(ctx, func(t *Tx) error {
		out = out[:0]
		for i, in := range ins {
			issue, err := t.createIssue(in)
			if err != nil {
				return batchErr(err, i, len(ins))
			}
			out = append(out, issue)
		}
		return nil
	})
	return out, err
}

// batchErr prefixes an error with the position of the failing item when
// there are several.
func batchErr(err error, i, n int) error {
	if n == 1 {
		return err
	}
	fe := &fault.Error{Code: fault.CodeOf(err), Msg: fmt.Sprintf("item %d: %v (nothing was changed)", i+1, err), Hint: fault.HintOf(err), Err: err}
	return fe
}

func (t *Tx) createIssue(in IssueInput) (tracker.Issue, error) {
	title, err := tracker.CleanTitle(in.Title)
	if err != nil {
		return tracker.Issue{}, err
	}
	typ := tracker.DefaultIssueType
	if in.Type != "" {
		if typ, err = tracker.ParseEnum("type", in.Type, tracker.IssueTypes); err != nil {
			return tracker.Issue{}, err
		}
	}
	prio := tracker.DefaultPriority
	if in.Priority != nil {
		prio = *in.Priority
	}
	if err := tracker.CheckPriority(prio); err != nil {
		return tracker.Issue{}, err
	}
	if in.Estimate != nil {
		if err := tracker.CheckEstimate(*in.Estimate); err != nil {
			return tracker.Issue{}, err
		}
	}
	id, uuid, err := t.newID("issues", func(h string) string { return tracker.IssueID(t.r.Config.Prefix, h) })
	if err != nil {
		return tracker.Issue{}, err
	}
	rec := tracker.IssueRecord{Issue: tracker.Issue{
		ID: id, UUID: uuid, Title: title, Description: in.Description, Status: tracker.IssueOpen,
		Type: typ, Priority: prio, Assignee: nonEmpty(in.Assignee), Estimate: in.Estimate,
		Tags: tracker.NormalizeTags(in.Tags), CreatedAt: t.now, UpdatedAt: t.now, CreatedBy: t.r.Actor,
	}}
	if in.Parent == nil || *in.Parent == "" {
		return rec.Issue, t.putIssue(&rec)
	}
	if _, err := t.issue(*in.Parent); err != nil {
		return tracker.Issue{}, parentErr(err, *in.Parent)
	}
	rec.ParentID = in.Parent
	if err := t.putIssue(&rec); err != nil {
		return tracker.Issue{}, err
	}
	if _, err := t.link(*in.Parent, id, tracker.RelParentChild); err != nil {
		return tracker.Issue{}, err
	}
	rec, err = t.issue(id)
	return rec.Issue, err
}

func parentErr(err error, parent string) error {
	if fault.Is(err, fault.NotFound) {
		return fault.New(fault.NotFound, "parent %s not found", parent).WithHint("a parent must be an existing id; check it with list")
	}
	return err
}

// newID draws a fresh uuid and the shortest free id for it.
func (t *Tx) newID(table string, form func(hash string) string) (id, uuid string, err error) {
	// Issues and specs are counted in the tally (by type), which a count
	// of the table would walk row by row.
	q := `SELECT count(*) FROM ` + table
	if table == "issues" || table == "specs" {
		q = `SELECT coalesce(sum(n), 0) FROM tally WHERE k >= '` + table + `.type:' AND k < '` + table + `.type;'`
	}
	var n int
	if err := t.queryRow(q).Scan(&n); err != nil {
		return "", "", cacheErr(err)
	}
	uuid = tracker.NewUUID()
	for l := tracker.HashLen(n); l <= 25; l++ {
		id = form(tracker.Hash(uuid, l))
		var one int
		err := t.queryRow(`SELECT 1 FROM `+table+` WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return id, uuid, nil
		}
		if err != nil {
			return "", "", cacheErr(err)
		}
	}
	return "", "", fault.New(fault.Internal, "no free id for %s", uuid)
}

func nonEmpty(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	v := strings.TrimSpace(*s)
	return &v
}

// IssuePatch changes the non-nil fields of an issue. An empty Assignee
// clears it.
type IssuePatch struct {
	Title, Description, Status, Type, Assignee *string
	Priority, Estimate                         *int
	Tags                                       *[]string
}

// UpdateIssue applies a patch and returns the issue.
func (r *Repo) UpdateIssue(ctx context.Context, id string, p IssuePatch) (tracker.Issue, error) {
	out, err := r.UpdateIssues(ctx, []IssueUpdate{{ID: id, Patch: p}})
	if err != nil {
		return tracker.Issue{}, err
	}
	return out[0], nil
}

// IssueUpdate is one issue's patch in a batch.
type IssueUpdate struct {
	ID    string
	Patch IssuePatch
}

// UpdateIssues applies several patches in one change: all or none.
func (r *Repo) UpdateIssues(ctx context.Context, ups []IssueUpdate) ([]tracker.Issue, error) {
	if len(ups) == 0 {
		return nil, fault.New(fault.Invalid, "no issues to update")
	}
	out := make([]tracker.Issue, 0, len(ups))
	err := r.Update(ctx, func(t *Tx) error {
		out = out[:0]
		for i, u := range ups {
			rec, err := t.issue(u.ID)
			before := rec.Issue
			if err == nil {
				err = applyIssuePatch(&rec.Issue, u.Patch, t)
			}
			if err == nil {
				err = t.noteIssueChanges(&before, &rec.Issue)
			}
			if err != nil {
				return batchErr(err, i, len(ups))
			}
			rec.UpdatedAt = t.now
			if err := t.putIssue(&rec); err != nil {
				return err
			}
			out = append(out, rec.Issue)
		}
		return nil
	})
	return out, err
}

func applyIssuePatch(i *tracker.Issue, p IssuePatch, t *Tx) error {
	if p.Title != nil {
		title, err := tracker.CleanTitle(*p.Title)
		if err != nil {
			return err
		}
		i.Title = title
	}
	if p.Description != nil {
		i.Description = *p.Description
	}
	if p.Type != nil {
		typ, err := tracker.ParseEnum("type", *p.Type, tracker.IssueTypes)
		if err != nil {
			return err
		}
		i.Type = typ
	}
	if p.Priority != nil {
		if err := tracker.CheckPriority(*p.Priority); err != nil {
			return err
		}
		i.Priority = *p.Priority
	}
	if p.Estimate != nil {
		if err := tracker.CheckEstimate(*p.Estimate); err != nil {
			return err
		}
		i.Estimate = p.Estimate
	}
	if p.Assignee != nil {
		i.Assignee = nonEmpty(p.Assignee)
	}
	if p.Tags != nil {
		i.Tags = tracker.NormalizeTags(*p.Tags)
	}
	if p.Status != nil {
		st, err := tracker.ParseEnum("status", *p.Status, tracker.IssueStatuses)
		if err != nil {
			return err
		}
		setIssueStatus(i, st, nil, t)
	}
	return nil
}

// setIssueStatus keeps closed_at and close_reason true to the status.
func setIssueStatus(i *tracker.Issue, st tracker.IssueStatus, reason *string, t *Tx) {
	switch {
	case st == tracker.IssueClosed && i.Status != tracker.IssueClosed:
		now := t.now
		i.ClosedAt = &now
		i.CloseReason = reason
	case st != tracker.IssueClosed:
		i.ClosedAt, i.CloseReason = nil, nil
	}
	i.Status = st
}

// CloseIssues closes each id, reporting per id; one unknown id does not
// stop the others. Closing a closed issue succeeds and changes nothing.
func (r *Repo) CloseIssues(ctx context.Context, ids []string, reason string) ([]tracker.CloseResult, error) {
	if len(ids) == 0 {
		return nil, fault.New(fault.Invalid, "no issue ids to close")
	}
	if strings.TrimSpace(reason) == "" {
		reason = tracker.DefaultCloseReason
	}
	out := make([]tracker.CloseResult, 0, len(ids))
	err := r.Update(ctx, func(t *Tx) error {
		out = out[:0]
		for _, id := range ids {
			rec, err := t.issue(id)
			if err != nil {
				if !fault.Is(err, fault.NotFound) {
					return err
				}
				msg := err.Error()
				out = append(out, tracker.CloseResult{ID: id, Error: &msg})
				continue
			}
			if rec.Status != tracker.IssueClosed {
				before := rec.Issue
				setIssueStatus(&rec.Issue, tracker.IssueClosed, &reason, t)
				if err := t.noteIssueChanges(&before, &rec.Issue); err != nil {
					return err
				}
				rec.UpdatedAt = t.now
				if err := t.putIssue(&rec); err != nil {
					return err
				}
			}
			out = append(out, tracker.CloseResult{ID: id, Success: true})
		}
		return nil
	})
	return out, err
}

// ShowIssue returns an issue with its links, blockers and the feedback it gave.
func (r *Repo) ShowIssue(ctx context.Context, id string) (tracker.IssueDetail, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.IssueDetail{}, err
	}
	rec, err := v.issue(id)
	if err != nil {
		return tracker.IssueDetail{}, err
	}
	d := tracker.IssueDetail{Issue: rec.Issue, Relationships: tracker.Relationships{Outgoing: rec.Relationships}}
	if d.Relationships.Incoming, err = v.incoming(id); err != nil {
		return d, err
	}
	if d.BlockedBy, err = tracker.Blockers(v, id); err != nil {
		return d, err
	}
	if d.Feedback, err = v.feedbackWhere(`issue_id = ?`, id); err != nil {
		return d, err
	}
	d.Comments, d.History, err = r.Activity(rec.ID)
	return d, err
}
