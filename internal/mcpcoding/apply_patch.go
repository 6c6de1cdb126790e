package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace/patch"
)

type applyPatchIn struct {
	Patch  string `json:"patch" jsonschema:"The patch: *** Begin Patch, then *** Add File / *** Update File / *** Delete File sections, then *** End Patch" schema:"minLength=1"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Validate and report without writing anything" schema:"default=false"`
}

func (s *Server) applyPatch() tool {
	return define("apply_patch", "Apply a patch envelope (add, update, delete, move files) to the workspace, all or nothing.",
		hints("Apply patch", false, true, false, false),
		func(ctx context.Context, in applyPatchIn) (*patch.Result, error) {
			return s.patcher.Apply(s.root, in.Patch, in.DryRun)
		})
}
