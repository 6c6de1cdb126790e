package store

import "strings"

// tallySchema keeps counts that stats and status read in a few lookups
// instead of scanning every row: triggers move them with each row written.
// Keys are "issues.state:STATUS:BLOCKED", "issues.type:TYPE", the same for
// specs, and "rels.type:TYPE".
var tallySchema = tallyTable + tallyTriggers("issues", "status, type, blocked", issueStateKey, issueTypeKey) +
	tallyTriggers("specs", "status, type, blocked", specStateKey, specTypeKey) +
	tallyTriggers("rels", "type", relTypeKey)

const tallyTable = `
CREATE TABLE IF NOT EXISTS tally (k TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
`

const (
	issueStateKey = "'issues.state:' || %s.status || ':' || %s.blocked"
	issueTypeKey  = "'issues.type:' || %s.type"
	specStateKey  = "'specs.state:' || %s.status || ':' || %s.blocked"
	specTypeKey   = "'specs.type:' || %s.type"
	relTypeKey    = "'rels.type:' || %s.type"
)

// tallyTriggers counts each row of table under the keys (SQL expressions
// of the row, written with %s for NEW or OLD), which depend on cols only.
// Rows are never replaced (REPLACE would skip the delete trigger): the
// store writes them with upserts.
func tallyTriggers(table, cols string, keys ...string) string {
	key := func(k, row string) string { return strings.ReplaceAll(k, "%s", row) }
	var ins, del strings.Builder
	for _, k := range keys {
		ins.WriteString("INSERT INTO tally VALUES (" + key(k, "NEW") + ", 1) ON CONFLICT (k) DO UPDATE SET n = n + 1;\n")
		del.WriteString("UPDATE tally SET n = n - 1 WHERE k = " + key(k, "OLD") + ";\n")
	}
	return "CREATE TRIGGER IF NOT EXISTS " + table + "_tally_ins AFTER INSERT ON " + table + " BEGIN\n" + ins.String() + "END;\n" +
		"CREATE TRIGGER IF NOT EXISTS " + table + "_tally_del AFTER DELETE ON " + table + " BEGIN\n" + del.String() + "END;\n" +
		"CREATE TRIGGER IF NOT EXISTS " + table + "_tally_upd AFTER UPDATE OF " + cols + " ON " + table + " BEGIN\n" + del.String() + ins.String() + "END;\n"
}
