package mcprulesets_test

import (
	"strings"
	"testing"
)

// The tests in this file replay the request examples of the MCP Ruleset
// Server specification and compare the texts exactly.

const pythonMarkdown = "# Python Style Guide\n\n## Naming Conventions\n\n- Use snake_case for functions and variables\n- Use PascalCase for classes\n\n## Imports\n\n- Group imports: standard library, third-party, local\n- Use absolute imports when possible"

func createPython(f *fixture) {
	f.clock.Set("2025-10-29 10:30:00")
	f.ok("upsert_ruleset", map[string]any{
		"name":        "python_style_guide",
		"description": "Python coding style guidelines for team projects",
		"tags":        []string{"python", "style", "pep8"},
		"markdown":    pythonMarkdown,
	}, "Successfully upserted ruleset 'python_style_guide'")
}

func TestSeedUpsertAndGet(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		createPython(f)
		f.ok("get_ruleset", map[string]any{"name": "python_style_guide"},
			"---\nname: python_style_guide\ndescription: Python coding style guidelines for team projects\ntags: [python, style, pep8]\ncreated_at: 2025-10-29 10:30:00\nlast_modified: 2025-10-29 10:30:00\n---\n\n"+pythonMarkdown)

		f.clock.Set("2025-10-29 15:45:00")
		f.ok("upsert_ruleset", map[string]any{
			"name":        "python_style_guide",
			"description": "Updated Python coding style guidelines with PEP 8 compliance",
		}, "Successfully upserted ruleset 'python_style_guide'")
		f.ok("get_ruleset", map[string]any{"name": "python_style_guide"},
			"---\nname: python_style_guide\ndescription: Updated Python coding style guidelines with PEP 8 compliance\ntags: [python, style, pep8]\ncreated_at: 2025-10-29 10:30:00\nlast_modified: 2025-10-29 15:45:00\n---\n\n"+pythonMarkdown)
	})
}

func TestSeedUpsertErrors(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.fails("upsert_ruleset", map[string]any{"name": "new_one", "markdown": "# x"},
			"failed to upsert ruleset: description is required for new rulesets")
		f.fails("upsert_ruleset", map[string]any{"name": "new_one", "description": "x"},
			"failed to upsert ruleset: markdown is required for new rulesets")
		f.fails("upsert_ruleset", map[string]any{"name": "Python-Style", "description": "d", "markdown": "m"},
			"failed to upsert ruleset: invalid ruleset name 'Python-Style': must use snake_case (lowercase letters, numbers, and underscores only)")
		f.ok("list_rulesets", map[string]any{}, "No rulesets found")
	})
}

func TestSeedResource(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.clock.Set("2025-10-29 10:30:00")
		f.ok("upsert_ruleset", map[string]any{
			"name": "python_style_guide", "description": "Python coding style guidelines",
			"tags": []string{"python", "style", "pep8"}, "markdown": "# Python Style Guide\n\n## Naming Conventions\n...",
		}, "Successfully upserted ruleset 'python_style_guide'")
		res, err := f.read("ruleset://python_style_guide")
		if err != nil {
			t.Fatal(err)
		}
		c := res.Contents[0]
		want := "---\nname: python_style_guide\ndescription: Python coding style guidelines\ntags: [python, style, pep8]\ncreated_at: 2025-10-29 10:30:00\nlast_modified: 2025-10-29 10:30:00\n---\n\n# Python Style Guide\n\n## Naming Conventions\n..."
		if len(res.Contents) != 1 || c.URI != "ruleset://python_style_guide" || c.MIMEType != "text/markdown" || c.Text != want {
			t.Fatalf("contents = %+v", c)
		}
		_, err = f.read("ruleset://nonexistent")
		checkRPCError(t, err, -32603, "failed to retrieve ruleset: ruleset 'nonexistent' not found")

		templates, err := f.cs.ListResourceTemplates(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// The specification's template, and the history beside it.
		tpl := templates.ResourceTemplates
		if len(tpl) != 2 || tpl[1].URITemplate != "ruleset://{name}" || tpl[1].MIMEType != "text/markdown" ||
			tpl[1].Description != "AI editor ruleset with metadata and markdown content" || tpl[0].URITemplate != "ruleset-history://{name}" {
			t.Fatalf("templates = %+v", tpl)
		}
	})
}

func TestSeedListAndSearch(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.ok("list_rulesets", map[string]any{}, "No rulesets found")
		createPython(f)
		f.clock.Set("2025-10-29 11:00:00")
		f.ok("upsert_ruleset", map[string]any{"name": "go_conventions", "description": "Go coding conventions and best practices",
			"tags": []string{"go", "conventions"}, "markdown": "# Go"}, "Successfully upserted ruleset 'go_conventions'")
		f.clock.Set("2025-10-29 12:15:00")
		f.ok("upsert_ruleset", map[string]any{"name": "javascript_rules", "description": "JavaScript and TypeScript style rules",
			"tags": []string{"javascript", "typescript", "eslint"}, "markdown": "# JS"}, "Successfully upserted ruleset 'javascript_rules'")
		f.clock.Set("2025-10-29 14:20:00")
		f.ok("upsert_ruleset", map[string]any{"name": "javascript_rules", "markdown": "# JS and TS"}, "Successfully upserted ruleset 'javascript_rules'")
		f.clock.Set("2025-10-29 15:45:00")
		f.ok("upsert_ruleset", map[string]any{"name": "python_style_guide", "markdown": pythonMarkdown + "\n"}, "Successfully upserted ruleset 'python_style_guide'")

		f.ok("list_rulesets", map[string]any{}, "Found 3 ruleset(s):\n\n- **python_style_guide**: Python coding style guidelines for team projects\n  Tags: [python style pep8]\n  Created: 2025-10-29 10:30:00, Modified: 2025-10-29 15:45:00\n\n- **go_conventions**: Go coding conventions and best practices\n  Tags: [go conventions]\n  Created: 2025-10-29 11:00:00, Modified: 2025-10-29 11:00:00\n\n- **javascript_rules**: JavaScript and TypeScript style rules\n  Tags: [javascript typescript eslint]\n  Created: 2025-10-29 12:15:00, Modified: 2025-10-29 14:20:00\n\n")

		f.clock.Set("2025-10-29 13:00:00")
		f.ok("upsert_ruleset", map[string]any{"name": "python_testing", "description": "Python testing best practices",
			"tags": []string{"python", "testing", "pytest"}, "markdown": "# pytest"}, "Successfully upserted ruleset 'python_testing'")
		f.ok("search_rulesets", map[string]any{"pattern": "*python*"}, "Found 2 ruleset(s) matching '*python*':\n\n- **python_style_guide**: Python coding style guidelines for team projects\n  Tags: [python style pep8]\n  Created: 2025-10-29 10:30:00, Modified: 2025-10-29 15:45:00\n\n- **python_testing**: Python testing best practices\n  Tags: [python testing pytest]\n  Created: 2025-10-29 13:00:00, Modified: 2025-10-29 13:00:00\n\n")
		f.ok("search_rulesets", map[string]any{"pattern": "nonexistent*"}, "No rulesets found matching pattern 'nonexistent*'")

		// The specification's other pattern examples.
		for pattern, want := range map[string][]string{
			"*_style_*":      {"python_style_guide"},
			"*_guide":        {"python_style_guide"},
			"python_*":       {"python_style_guide", "python_testing"},
			"*":              {"python_style_guide", "go_conventions", "javascript_rules", "python_testing"},
			"go_conv?ntions": {"go_conventions"},
		} {
			got, _ := f.call("search_rulesets", map[string]any{"pattern": pattern})
			if n := strings.Count(got, "- **"); n != len(want) {
				t.Errorf("search %q found %d, want %v:\n%s", pattern, n, want, got)
			}
			for _, name := range want {
				if !strings.Contains(got, "- **"+name+"**") {
					t.Errorf("search %q misses %s", pattern, name)
				}
			}
		}
		all, _ := f.call("search_rulesets", map[string]any{"pattern": "*"})
		list, _ := f.call("list_rulesets", map[string]any{})
		if strings.TrimPrefix(all, "Found 4 ruleset(s) matching '*':") != strings.TrimPrefix(list, "Found 4 ruleset(s):") {
			t.Errorf("search '*' and list differ:\n%s\n%s", all, list)
		}
	})
}

func TestSeedDelete(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		for _, n := range []string{"testing_best_practices", "go_conventions", "javascript_rules", "python_style_guide"} {
			f.ok("upsert_ruleset", map[string]any{"name": n, "description": "d", "markdown": "m"}, "Successfully upserted ruleset '"+n+"'")
		}
		f.ok("delete_ruleset", map[string]any{"name": "python_style_guide"}, "Successfully deleted ruleset 'python_style_guide'")
		f.fails("delete_ruleset", map[string]any{"name": "nonexistent"},
			"failed to delete ruleset: ruleset 'nonexistent' not found. Existing rulesets: [go_conventions, javascript_rules, testing_best_practices]")
		f.fails("get_ruleset", map[string]any{"name": "nonexistent"}, "failed to retrieve ruleset: ruleset 'nonexistent' not found")
		f.fails("get_ruleset", map[string]any{"name": "python_style_guide"}, "failed to retrieve ruleset: ruleset 'python_style_guide' not found")
	})
}

// TestSeedWorkflow is the specification's "Complete CRUD Workflow".
func TestSeedWorkflow(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.clock.Set("2025-10-29 09:00:00")
		f.ok("upsert_ruleset", map[string]any{"name": "api_design", "description": "RESTful API design principles",
			"tags": []string{"api", "rest", "design"}, "markdown": "# API Design Principles\n\n## Resource Naming\n..."},
			"Successfully upserted ruleset 'api_design'")
		f.ok("list_rulesets", map[string]any{}, "Found 1 ruleset(s):\n\n- **api_design**: RESTful API design principles\n  Tags: [api rest design]\n  Created: 2025-10-29 09:00:00, Modified: 2025-10-29 09:00:00\n\n")
		res, err := f.read("ruleset://api_design")
		if err != nil || !strings.HasPrefix(res.Contents[0].Text, "---\nname: api_design\ndescription: RESTful API design principles\ntags: [api, rest, design]\n") {
			t.Fatalf("read: %v %+v", err, res)
		}
		f.clock.Set("2025-10-29 09:30:00")
		f.ok("upsert_ruleset", map[string]any{"name": "api_design", "description": "RESTful API design principles and best practices",
			"tags": []string{"api", "rest", "design", "http"}}, "Successfully upserted ruleset 'api_design'")
		f.ok("search_rulesets", map[string]any{"pattern": "*api*"}, "Found 1 ruleset(s) matching '*api*':\n\n- **api_design**: RESTful API design principles and best practices\n  Tags: [api rest design http]\n  Created: 2025-10-29 09:00:00, Modified: 2025-10-29 09:30:00\n\n")
		f.ok("delete_ruleset", map[string]any{"name": "api_design"}, "Successfully deleted ruleset 'api_design'")
		f.ok("list_rulesets", map[string]any{}, "No rulesets found")
	})
}

// get_ruleset and the ruleset:// resource print a ruleset the same, tags
// included: front matter whose tag list is a YAML flow sequence, so that
// a tag of several words stays one tag.
func TestGetRulesetIsTheResource(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		f.ok("upsert_ruleset", map[string]any{"name": "style", "description": "d",
			"tags": []string{"python", "code style", "pep8"}, "markdown": "# Style"}, "Successfully upserted ruleset 'style'")
		got, isErr := f.call("get_ruleset", map[string]any{"name": "style"})
		res, err := f.read("ruleset://style")
		if err != nil || isErr {
			t.Fatal(err, got)
		}
		if got != res.Contents[0].Text || !strings.Contains(got, "\ntags: [python, code style, pep8]\n") {
			t.Fatalf("get_ruleset:\n%s\nresource:\n%s", got, res.Contents[0].Text)
		}
	})
}
