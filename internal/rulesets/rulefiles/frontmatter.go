package rulefiles

import (
	"strconv"
	"strings"
)

// The agents' front matter is a few flat "key: value" lines; this reads
// and writes that much of YAML and no more.

// splitFrontMatter returns the "---" block's keys and the text after it.
// A file without one has none.
func splitFrontMatter(content string) (keys map[string]string, body string) {
	keys = map[string]string{}
	rest, ok := strings.CutPrefix(content, "---\n")
	if !ok {
		return keys, content
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if head, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return keys, content
		}
		body = ""
	}
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "#") {
			continue
		}
		keys[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
	}
	return keys, body
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"') {
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// splitGlobs reads a glob list as the agents write one: comma-separated
// (commas inside braces belong to the pattern), or a YAML flow list; each
// glob in the library's dialect (libraryGlob).
func splitGlobs(v string) []string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
	}
	var out []string
	depth, start := 0, 0
	add := func(s string) {
		s = libraryGlob(unquote(strings.TrimSpace(s)))
		if s != "" {
			out = append(out, s)
		}
	}
	for i, r := range v {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				add(v[start:i])
				start = i + 1
			}
		}
	}
	add(v[start:])
	return out
}

// libraryGlob is an agent's glob in the library's dialect, relative to
// the repository root: Cursor and Copilot take "/" (and people write
// "./") for the root, which the library's globs are relative to already,
// and "src/" for everything in a directory, which the library writes
// "src/**". A root-anchored glob without another '/' ("/*.go") loses its
// anchor: the library matches such a glob against base names anywhere.
func libraryGlob(g string) string {
	for strings.HasPrefix(g, "/") || strings.HasPrefix(g, "./") {
		g = strings.TrimPrefix(strings.TrimPrefix(g, "."), "/")
	}
	if strings.HasSuffix(g, "/") {
		g += "**"
	}
	return g
}

// frontMatter writes key-value lines as a "---" block.
func frontMatter(kv ...string) string {
	var b strings.Builder
	b.WriteString("---\n")
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			b.WriteString(kv[i] + ":\n")
			continue
		}
		b.WriteString(kv[i] + ": " + kv[i+1] + "\n")
	}
	b.WriteString("---\n")
	return b.String()
}
