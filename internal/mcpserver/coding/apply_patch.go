package coding

import (
	"context"
)

type applyPatchIn struct {
	Patch  string `json:"patch"`
	DryRun bool   `json:"dry_run"`
}

func (s *Server) applyPatch() tool {
	return define("apply_patch", "Apply a patch envelope (add, update, delete, move files) to the workspace, all or nothing.",
		hints("Apply patch", false, true, false, false),
		object([]string{"patch"},
			"patch", str("The patch: *** Begin Patch, then *** Add File / *** Update File / *** Delete File sections, then *** End Patch").nonEmpty(),
			"dry_run", boolean("Validate and report without writing anything").def(false),
		),
		map[string]any{"dry_run": tBool, "clean": tBool, "summary": tString, "affected_files": tArray},
		func(ctx context.Context, in applyPatchIn) (map[string]any, error) {
			return s.patcher.Apply(s.root, in.Patch, in.DryRun)
		})
}
