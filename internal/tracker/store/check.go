package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// The store reads the tracked files with the domain's codec, adding what
// only the store knows: a spec's file_path must obey the body rule
// (bodypath.go) in its clean form, and no two specs may share a body, since
// a change of either would replace the other's. Any bad line stops the
// command with an error naming the file and the line.

func parseIssues(data []byte) ([]tracker.IssueRecord, error) {
	recs, err := tracker.ParseIssues(data, (*tracker.IssueRecord).Validate)
	return recs, recordErr("", err)
}

func parseFeedback(data []byte) ([]tracker.Feedback, error) {
	recs, err := tracker.ParseFeedback(data, (*tracker.Feedback).Validate)
	return recs, recordErr("", err)
}

// parseSpecs reads specs.jsonl; from names the file in errors when it is
// not the tracker's own ("the merged " for an import's merge).
func parseSpecs(from string, data []byte) ([]tracker.SpecRecord, error) {
	bodyOf := map[string]string{} // bodyKey → spec id
	recs, err := tracker.ParseSpecs(data, func(r *tracker.SpecRecord) error {
		if err := r.Validate(); err != nil {
			return err
		}
		if r.FilePath == "" {
			return errors.New("no file_path")
		}
		if err := checkRecordPath(r.FilePath); err != nil {
			return err
		}
		k := bodyKey(r.FilePath)
		if other, ok := bodyOf[k]; ok {
			return fmt.Errorf("file_path %s is also the body of %s", r.FilePath, other)
		}
		bodyOf[k] = r.ID
		return nil
	})
	return recs, recordErr(from, err)
}

// recordErr turns the codec's error into the store's: invalid input with a
// hint to fix the line.
func recordErr(from string, err error) error {
	var le *tracker.LineError
	if !errors.As(err, &le) {
		return err
	}
	return fault.New(fault.Invalid, "%s%s line %d is not a valid record: %v", from, le.File, le.Line, le.Err).
		WithHint("fix or remove the line (a leftover merge conflict?), then run the command again")
}

// readTracked reads a tracked file; an absent file is empty.
func readTracked(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+filepath.Base(path))
	}
	return data, nil
}

// readFiles reads the three tracked files of the tracker in dir.
func readFiles(dir string) (issues []tracker.IssueRecord, specs []tracker.SpecRecord, feedback []tracker.Feedback, err error) {
	var data [3][]byte
	for i, f := range []string{IssuesFile, SpecsFile, FeedbackFile} {
		if data[i], err = readTracked(filepath.Join(dir, f)); err != nil {
			return nil, nil, nil, err
		}
	}
	if issues, err = parseIssues(data[0]); err != nil {
		return nil, nil, nil, err
	}
	if specs, err = parseSpecs("", data[1]); err != nil {
		return nil, nil, nil, err
	}
	if feedback, err = parseFeedback(data[2]); err != nil {
		return nil, nil, nil, err
	}
	return issues, specs, feedback, nil
}
