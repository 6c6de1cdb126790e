package tracker

import "fmt"

// The type names read backwards for the blocking links: the tracker's
// requirement (docs/servers.md#tracker-tools) defines `blocks` as "to_id must
// complete before from_id", so "A blocks B" means A waits for B. Every surface
// (CLI, MCP descriptions, the page, the README) says a link in the plain words
// below instead of "A blocks B".

// readings are the sentences of each type, from first, to second.
var readings = map[RelType]string{
	RelBlocks:         "%s waits for %s",
	RelDependsOn:      "%s waits for %s (depends on it)",
	RelParentChild:    "%s is the parent of %s",
	RelImplements:     "%s implements %s",
	RelReferences:     "%s references %s",
	RelDiscoveredFrom: "%s was discovered from %s",
	RelRelated:        "%s is related to %s",
}

// Reads is the link from → to of type t in plain words: "A waits for B"
// for `link A B --type blocks`.
func (t RelType) Reads(from, to string) string {
	if f, ok := readings[t]; ok {
		return fmt.Sprintf(f, from, to)
	}
	return fmt.Sprintf("%s %s %s", from, t, to)
}
