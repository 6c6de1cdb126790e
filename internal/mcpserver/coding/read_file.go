package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type readFileIn struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   *int   `json:"end_line"`
	MaxBytes  int    `json:"max_bytes"`
}

func (s *Server) readFile() tool {
	return define("read_file", "Read a slice of a UTF-8 text file by lines, with line and byte limits.",
		hints("Read file", true, false, true, false),
		object([]string{"path"},
			"path", str("Workspace-relative file path").nonEmpty(),
			"start_line", integer("First line to read (1-based)", 1, maxInt).def(1),
			"end_line", integer("Last line to read, inclusive (default: end of file)", 1, maxInt),
			"max_bytes", integer("Most bytes of content to return", 1, 1048576).def(131072),
			"encoding", str("Text encoding").def("utf-8").oneOf("utf-8"),
		),
		map[string]any{"path": tString, "content": tString, "encoding": tString, "start_line": tInt, "end_line": tInt,
			"total_lines": tInt, "total_bytes": tInt, "bytes_read": tInt, "truncated": tBool, "truncated_by": tNullStr,
			"output_lines": tInt, "output_bytes": tInt, "next_start_line": tNullInt},
		func(ctx context.Context, in readFileIn) (map[string]any, error) {
			return workspace.ReadFile(s.root, in.Path, in.StartLine, in.EndLine, in.MaxBytes)
		})
}
