package rulefiles

import (
	"context"
	"os"
	"slices"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// existing is an agent's rule file that is in the repository already.
type existing struct {
	rel       string
	generated Generated
	found     []Found // the rulesets in it
}

// existingFiles are the rule files under root of the agents.
func existingFiles(ctx context.Context, root string, dir *os.Root, agents []string) ([]existing, error) {
	var out []existing
	err := walk(ctx, dir, func(rel string) error {
		if !slices.Contains(agents, agentOf(rel)) {
			return nil
		}
		text, err := readRuleFile(dir, rel)
		if err != nil {
			return err
		}
		g, _ := inspect(text)
		out = append(out, existing{rel: rel, generated: g, found: Parse(rel, text)})
		return nil
	})
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read the rule files under "+root)
	}
	return out, nil
}

// keepOwnFiles moves each file of plan that holds one ruleset to the file
// that holds that ruleset in the repository already, when that one has a
// name of its own (01_python_code.mdc for 01-python-code.mdc): export
// updates the file a ruleset came from, instead of writing a second copy
// beside it that the agent would load too. Where the name Render chooses
// is taken already, the file is moved only when that one is a copy export
// generated, unedited (it is then removed), and export may write the
// ruleset's own file: generated, or holding what the library holds (rs).
func keepOwnFiles(plan map[string]string, files []existing, rs []rulesets.Ruleset) {
	at := map[string]existing{}
	for _, f := range files {
		at[f.rel] = f
	}
	for _, f := range files {
		kind := kindOf(f.rel)
		if !hasFrontMatter(kind) || len(f.found) != 1 {
			continue
		}
		chosen := ruleFile(kind, f.found[0].Ruleset.Name)
		content, planned := plan[chosen]
		if chosen == f.rel || !planned {
			continue
		}
		if _, taken := plan[f.rel]; taken {
			continue
		}
		if other, exists := at[chosen]; exists {
			writable := f.generated == Intact || f.generated == NotGenerated && heldByLibrary(f.found, rs)
			if other.generated != Intact || !writable {
				continue
			}
		}
		delete(plan, chosen)
		plan[f.rel] = content
	}
}

// heldByLibrary reports whether every ruleset of a file written by hand
// is in rs as the file says it: rewriting such a file loses nothing, the
// library keeping what it held (an import made it so).
func heldByLibrary(found []Found, rs []rulesets.Ruleset) bool {
	if len(found) == 0 {
		return false
	}
	for _, f := range found {
		i := slices.IndexFunc(rs, func(r rulesets.Ruleset) bool { return r.Name == f.Ruleset.Name })
		if i < 0 || show(rs[i], f.HasTags) != show(f.Ruleset, f.HasTags) {
			return false
		}
	}
	return true
}
