package mcpcoding_test

import (
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// The bug-fix loops are what an agent does with these tools: find the
// code, read it, run the failing tests, patch, run them again, review the
// diff, all through MCP over the built binary, in a real git repository.

func TestBugFixLoopJavaScript(t *testing.T) {
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{
		"package.json": `{"name":"calc","version":"1.0.0","scripts":{"test":"node --test"}}` + "\n",
		"src/sum.js":   "function sum(values) {\n  let total = 0;\n  for (let i = 1; i < values.length; i++) {\n    total += values[i];\n  }\n  return total;\n}\n\nmodule.exports = { sum };\n",
		"test/sum.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/sum.js');\n\n" +
			"test('adds every value', () => {\n  assert.strictEqual(sum([1, 2, 3]), 6);\n});\n",
	})
	bugFixLoop(t, dir, "node --test test/", "function sum", "src/sum.js",
		"*** Begin Patch\n*** Update File: src/sum.js\n@@ function sum(values) {\n-  for (let i = 1; i < values.length; i++) {\n+  for (let i = 0; i < values.length; i++) {\n*** End Patch\n",
		"+  for (let i = 0; i < values.length; i++) {")
}

func TestBugFixLoopPython(t *testing.T) {
	testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{
		".gitignore":   "__pycache__/\n",
		"calc.py":      "def average(values):\n    \"\"\"The mean of values.\"\"\"\n    return sum(values) / (len(values) + 1)\n",
		"test_calc.py": "import unittest\n\nfrom calc import average\n\n\nclass AverageTest(unittest.TestCase):\n    def test_average(self):\n        self.assertEqual(average([2, 4, 6]), 4)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n",
	})
	bugFixLoop(t, dir, "python3 -m unittest -v test_calc", "def average", "calc.py",
		"*** Begin Patch\n*** Update File: calc.py\n@@ def average(values):\n-    return sum(values) / (len(values) + 1)\n+    return sum(values) / len(values)\n*** End Patch\n",
		"+    return sum(values) / len(values)")
}

func bugFixLoop(t *testing.T, dir, testCmd, query, file, fix, wantDiff string) {
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "buggy")
	cs, _ := connectBinaryAt(t, dir, nil)
	s := newToolSession(t, cs, dir)

	found := s.ok(t, "search_text", map[string]any{"query": query})
	matches := objects(t, found["matches"])
	if len(matches) != 1 || matches[0]["path"] != file {
		t.Fatalf("search_text %q: %v", query, found["matches"])
	}
	read := s.ok(t, "read_file", map[string]any{"path": file})
	if !strings.Contains(read["content"].(string), strings.TrimPrefix(query, "def ")) {
		t.Fatalf("read_file: %v", read["content"])
	}

	run := func() map[string]any {
		t.Helper()
		res := s.ok(t, "exec_command", map[string]any{"cmd": testCmd, "timeout_ms": 60000, "yield_time_ms": 30000})
		if res["status"] != "exited" {
			t.Fatalf("%s did not finish: %v", testCmd, res)
		}
		return res
	}
	if before := run(); num(t, before["exit_code"]) == 0 {
		t.Fatalf("the tests passed before the fix: %v", before)
	}
	s.ok(t, "apply_patch", map[string]any{"patch": fix})
	if after := run(); num(t, after["exit_code"]) != 0 {
		t.Fatalf("the tests fail after the fix: %v\n%v", after["stdout"], after["stderr"])
	}
	diff := s.ok(t, "git_diff", map[string]any{})
	if !strings.Contains(diff["diff"].(string), wantDiff) {
		t.Fatalf("git_diff lacks the fix:\n%s", diff["diff"])
	}
	status := s.ok(t, "git_status", map[string]any{})
	if entries := objects(t, status["entries"]); len(entries) != 1 || entries[0]["path"] != file {
		t.Fatalf("git_status: %v", status["entries"])
	}
}
