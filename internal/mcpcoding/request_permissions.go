package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type requestPermissionsIn struct {
	ToolName   string         `json:"tool_name" jsonschema:"The tool that needs the permission" schema:"enum=exec_command|apply_patch"`
	Permission string         `json:"permission" jsonschema:"The permission" schema:"enum=network|destructive_command|long_timeout|sensitive_env|shell_expansion|inline_script|privileged_executable|write_generated_or_ignored"`
	Reason     string         `json:"reason" jsonschema:"Why it is needed" schema:"minLength=1"`
	Arguments  map[string]any `json:"arguments" jsonschema:"The arguments of the call that needs it"`
	Scope      string         `json:"scope,omitempty" jsonschema:"How long a grant would last" schema:"default=once,enum=once|session"`
	TTLSeconds int            `json:"ttl_seconds,omitempty" jsonschema:"Lifetime of a grant, in seconds" schema:"default=300,min=1,max=3600"`
}

// permissionRequest is the request as request_permissions echoes it:
// every argument, defaults applied (fields in key order: the JSON keeps
// the order it has always had).
type permissionRequest struct {
	Arguments  map[string]any `json:"arguments"`
	Permission string         `json:"permission"`
	Reason     string         `json:"reason"`
	Scope      string         `json:"scope"`
	ToolName   string         `json:"tool_name"`
	TTLSeconds int            `json:"ttl_seconds"`
}

// grantConstraints are what a grant is bound to; empty when nothing is
// granted.
type grantConstraints struct {
	Mode      string             `json:"mode,omitempty" jsonschema:"dangerously_skip_all_permissions when granted"`
	Workspace string             `json:"workspace,omitempty" jsonschema:"The workspace root the grant applies to"`
	Requested *permissionRequest `json:"requested,omitempty" jsonschema:"The request"`
}

type requestPermissionsOut struct {
	Status      string           `json:"status" jsonschema:"granted, denied, unsupported or not_required"`
	GrantID     *string          `json:"grant_id" jsonschema:"The grant's id; null when nothing is granted"`
	ExpiresAt   *string          `json:"expires_at" jsonschema:"When the grant expires; null"`
	Constraints grantConstraints `json:"constraints"`
	Warnings    []string         `json:"warnings"`
}

// requestPermissions never grants silently: v0.1 has no elicitation, so
// outside dangerous mode the answer is ELICITATION_UNSUPPORTED.
func (s *Server) requestPermissions() tool {
	return define("request_permissions", "Ask for a permission an exec_command or apply_patch call needs; without interactive approval it reports that it cannot be granted.",
		hints("Request permissions", true, false, false, false),
		func(ctx context.Context, in requestPermissionsIn) (*requestPermissionsOut, error) {
			requested := permissionRequest{Arguments: in.Arguments, Permission: in.Permission, Reason: in.Reason, Scope: in.Scope,
				ToolName: in.ToolName, TTLSeconds: in.TTLSeconds}
			if s.opts.Dangerous {
				return &requestPermissionsOut{Status: "granted", GrantID: new("dangerously-skip-all-permissions"),
					Constraints: grantConstraints{Mode: "dangerously_skip_all_permissions", Workspace: s.root.Path, Requested: &requested},
					Warnings:    []string{"dangerous mode auto-grants gated operations; no prompt was shown"}}, nil
			}
			return nil, failWith(&requestPermissionsOut{Status: "unsupported"},
				workspace.Errorf(workspace.CodeElicitationUnsupported, map[string]any{"requested": requested},
					"permission not granted: this server cannot ask the user (elicitation is not available), so %s cannot be granted", in.Permission))
		})
}
