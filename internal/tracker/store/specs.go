package store

import (
	"context"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// SpecInput is a new spec. Design is its markdown body; FilePath, relative
// to .sudocode, defaults to specs/{id}.md.
type SpecInput struct {
	Title       string
	Type        string
	Priority    *int
	Description *string
	Design      string
	FilePath    string
	Parent      *string
	Tags        []string
}

// CreateSpec adds a spec and writes its markdown file.
func (r *Repo) CreateSpec(ctx context.Context, in SpecInput) (tracker.Spec, error) {
	title, err := tracker.CleanTitle(in.Title)
	if err != nil {
		return tracker.Spec{}, err
	}
	typ := tracker.DefaultSpecType
	if in.Type != "" {
		if typ, err = tracker.ParseEnum("type", in.Type, tracker.SpecTypes); err != nil {
			return tracker.Spec{}, err
		}
	}
	prio := tracker.DefaultPriority
	if in.Priority != nil {
		prio = *in.Priority
	}
	if err := tracker.CheckPriority(prio); err != nil {
		return tracker.Spec{}, err
	}
	var out tracker.Spec
	err = r.Update(ctx, func(t *Tx) error {
		id, uuid, err := t.newID("specs", func(h string) string { return tracker.SpecID(r.Config.Prefix, h) })
		if err != nil {
			return err
		}
		fp := "specs/" + id + ".md"
		if in.FilePath != "" {
			if fp, err = cleanSpecPath(in.FilePath, filepath.Base(r.Dir)); err != nil {
				return err
			}
		}
		if err := t.refuseTakenPath(fp, ""); err != nil {
			return err
		}
		rec := tracker.SpecRecord{Spec: tracker.Spec{
			ID: id, UUID: uuid, Title: title, Description: nonEmpty(in.Description), Type: typ,
			Status: tracker.SpecDraft, Priority: prio, FilePath: fp, Tags: tracker.NormalizeTags(in.Tags),
			CreatedAt: t.now, UpdatedAt: t.now, CreatedBy: r.Actor,
		}}
		if in.Parent != nil && *in.Parent != "" {
			if _, err := t.spec(*in.Parent); err != nil {
				return parentErr(err, *in.Parent)
			}
			rec.ParentID = in.Parent
		}
		if err := t.putSpec(&rec); err != nil {
			return err
		}
		if err := t.setBody(id, fp, []byte(in.Design)); err != nil {
			return err
		}
		if rec.ParentID != nil {
			if _, err := t.link(*rec.ParentID, id, tracker.RelParentChild); err != nil {
				return err
			}
		}
		out = rec.Spec
		return nil
	})
	return out, err
}

// refuseTakenPath refuses a body file that is already another spec's
// body, or any other file: a new body is always a new file.
func (t *Tx) refuseTakenPath(fp, self string) error {
	ids, err := t.ids(`SELECT id FROM specs WHERE file_path = ? COLLATE NOCASE AND id != ?`, fp, self)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		return fault.New(fault.Conflict, "file path %s is already the body of %s", fp, ids[0]).
			WithHint("each spec has a body file of its own: choose another file_path, or leave it out for the default specs/{id}.md")
	}
	b, err := openBodies(t.r.Dir)
	if err != nil {
		return err
	}
	defer b.Close()
	exists, err := b.exists(fp)
	if err != nil {
		return err
	}
	if exists {
		return fault.New(fault.Invalid, "file path %s already exists: a new spec's body must be a new file", fp).
			WithHint("choose a file_path where no file is, or leave it out for the default specs/{id}.md; to make a spec of an existing document, pass its text as the design")
	}
	return nil
}

// SpecPatch changes the non-nil fields of a spec; Content replaces its
// markdown body (and relocates the feedback anchored on it).
type SpecPatch struct {
	Title, Status, Type, Description, Content *string
	Priority                                  *int
	Tags                                      *[]string
}

// UpdateSpec applies a patch and returns the spec.
func (r *Repo) UpdateSpec(ctx context.Context, id string, p SpecPatch) (tracker.Spec, error) {
	var out tracker.Spec
	err := r.Update(ctx, func(t *Tx) error {
		rec, err := t.spec(id)
		if err != nil {
			return err
		}
		s := &rec.Spec
		if p.Title != nil {
			if s.Title, err = tracker.CleanTitle(*p.Title); err != nil {
				return err
			}
		}
		if p.Status != nil {
			if s.Status, err = tracker.ParseEnum("status", *p.Status, tracker.SpecStatuses); err != nil {
				return err
			}
		}
		if p.Type != nil {
			if s.Type, err = tracker.ParseEnum("type", *p.Type, tracker.SpecTypes); err != nil {
				return err
			}
		}
		if p.Priority != nil {
			if err := tracker.CheckPriority(*p.Priority); err != nil {
				return err
			}
			s.Priority = *p.Priority
		}
		if p.Description != nil {
			s.Description = nonEmpty(p.Description)
		}
		if p.Tags != nil {
			s.Tags = tracker.NormalizeTags(*p.Tags)
		}
		s.UpdatedAt = t.now
		if err := t.putSpec(&rec); err != nil {
			return err
		}
		if p.Content != nil {
			if err := t.setBody(id, s.FilePath, []byte(*p.Content)); err != nil {
				return err
			}
		}
		out = *s
		return nil
	})
	return out, err
}

// ShowSpec returns a spec with its markdown, links and the feedback it received.
func (r *Repo) ShowSpec(ctx context.Context, id string) (tracker.SpecDetail, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.SpecDetail{}, err
	}
	rec, err := v.spec(id)
	if err != nil {
		return tracker.SpecDetail{}, err
	}
	body, err := r.readBody(rec.FilePath)
	if err != nil {
		return tracker.SpecDetail{}, err
	}
	d := tracker.SpecDetail{Spec: rec.Spec, Content: string(body), Relationships: tracker.Relationships{Outgoing: rec.Relationships}}
	if d.Relationships.Incoming, err = v.incoming(id); err != nil {
		return d, err
	}
	d.Feedback, err = v.feedbackWhere(`spec_id = ?`, id)
	return d, err
}
