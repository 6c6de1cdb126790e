package rulefiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

const (
	generatedPrefix = "<!-- sudocode:generated sha256="
	generatedSuffix = "; do not edit: change the rulesets, then run `sudocode rulesets export` -->"
	sectionPrefix   = "<!-- sudocode:ruleset "
	sectionSuffix   = " -->"
)

// meta is what a section marker keeps of a ruleset: everything but the
// markdown, which follows it.
type meta struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags,omitempty"`
	Globs       []string `json:"globs,omitempty"`
	Always      bool     `json:"always,omitempty"`
	Targets     []string `json:"targets,omitempty"`
}

// sectionLine is the marker before a ruleset's markdown. json.Marshal
// escapes '<' and '>', so no value can end the comment early.
func sectionLine(m meta) string {
	b, _ := json.Marshal(m)
	return sectionPrefix + string(b) + sectionSuffix
}

// parseSection reads a section marker line; ok is false for any other line.
func parseSection(line string) (m meta, ok bool) {
	rest, found := strings.CutPrefix(line, sectionPrefix)
	if !found {
		return m, false
	}
	rest, found = strings.CutSuffix(rest, sectionSuffix)
	if !found || json.Unmarshal([]byte(rest), &m) != nil || m.Name == "" {
		return meta{}, false
	}
	return m, true
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// seal puts the generated marker between a file's front matter and its
// body, with the hash of the two.
func seal(front, body string) string {
	return front + generatedPrefix + digest(front+body) + generatedSuffix + "\n" + body
}

// Generated is what the marker says of a file's content.
type Generated int

const (
	NotGenerated Generated = iota // no marker: a file written by hand
	Intact                        // generated and unchanged since
	EditedByHand                  // generated, then changed
)

// inspect finds the generated marker of content and checks its hash; rest
// is the content without the marker line.
func inspect(content string) (g Generated, rest string) {
	i := strings.Index(content, generatedPrefix)
	if i < 0 || (i > 0 && content[i-1] != '\n') {
		return NotGenerated, content
	}
	end := strings.IndexByte(content[i:], '\n')
	if end < 0 {
		return EditedByHand, content[:i]
	}
	line := content[i : i+end]
	rest = content[:i] + content[i+end+1:]
	hash, found := strings.CutSuffix(strings.TrimPrefix(line, generatedPrefix), generatedSuffix)
	if !found || hash != digest(rest) {
		return EditedByHand, rest
	}
	return Intact, rest
}
