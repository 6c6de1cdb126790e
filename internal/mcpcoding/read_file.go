package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type readFileIn struct {
	Path      string `json:"path" jsonschema:"Workspace-relative file path" schema:"minLength=1"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"First line to read (1-based)" schema:"default=1,min=1"`
	EndLine   *int   `json:"end_line,omitempty" jsonschema:"Last line to read, inclusive (default: end of file)" schema:"min=1"`
	MaxBytes  int    `json:"max_bytes,omitempty" jsonschema:"Most bytes of content to return" schema:"default=131072,min=1,max=1048576"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"Text encoding" schema:"default=utf-8,enum=utf-8"`
}

func (s *Server) readFile() tool {
	return define("read_file", "Read a slice of a UTF-8 text file by lines, with line and byte limits.",
		hints("Read file", true, false, true, false),
		func(ctx context.Context, in readFileIn) (*workspace.ReadResult, error) {
			return workspace.ReadFile(s.root, in.Path, in.StartLine, in.EndLine, in.MaxBytes)
		})
}
