package store

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"

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
			if fp, err = r.cleanSpecPath(in.FilePath); err != nil {
				return err
			}
		}
		if err := t.refuseTakenPath(fp, ""); err != nil {
			return err
		}
		rec := tracker.SpecRecord{Spec: tracker.Spec{
			ID: id, UUID: uuid, Title: title, Description: nonEmpty(in.Description), Type: typ,
			Status: tracker.SpecDraft, Priority: prio, FilePath: fp, Tags: tracker.CleanTags(in.Tags),
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

// cleanSpecPath confines a spec's file_path to the project: relative,
// forward slashes, inside the directory that holds .sudocode.
func (r *Repo) cleanSpecPath(p string) (string, error) {
	p = filepath.ToSlash(strings.TrimSpace(p))
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) {
		return "", fault.New(fault.Invalid, "invalid file path %q: must be relative to .sudocode (e.g. specs/auth.md)", p)
	}
	clean := path.Clean(p)
	if clean == "." || strings.HasPrefix(clean, "../../") || clean == ".." || strings.HasSuffix(clean, "/") {
		return "", fault.New(fault.Invalid, "invalid file path %q: must name a file inside the project", p)
	}
	if strings.HasPrefix(clean, "../") && strings.HasPrefix(strings.TrimPrefix(clean, "../"), DirName+"/") {
		clean = strings.TrimPrefix(clean, "../"+DirName+"/")
	}
	if reservedPath(clean) {
		return "", fault.New(fault.Invalid, "invalid file path %q: %s is one of the tracker's own files", p, clean).
			WithHint("put spec bodies under specs/ (the default) or elsewhere in the project")
	}
	return clean, nil
}

// reservedPath reports whether a cleaned file_path names one of the
// tracker's own files or folders, which a spec body must never overwrite.
func reservedPath(clean string) bool {
	switch clean {
	case ConfigFile, IssuesFile, SpecsFile, FeedbackFile, LockFile, SpecsDir, ".gitignore", ".gitattributes", "..", "../" + DirName:
		return true
	}
	return strings.HasPrefix(clean, CacheFile)
}

func (t *Tx) refuseTakenPath(fp, self string) error {
	ids, err := t.ids(`SELECT id FROM specs WHERE file_path = ? AND id != ?`, fp, self)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		return fault.New(fault.Conflict, "file path %s is already the body of %s", fp, ids[0])
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
			s.Tags = tracker.CleanTags(*p.Tags)
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
	body, _ := os.ReadFile(r.specPath(rec.FilePath))
	d := tracker.SpecDetail{Spec: rec.Spec, Content: string(body), Relationships: tracker.Relationships{Outgoing: rec.Relationships}}
	if d.Relationships.Incoming, err = v.incoming(id); err != nil {
		return d, err
	}
	d.Feedback, err = v.feedbackWhere(`spec_id = ?`, id)
	return d, err
}
