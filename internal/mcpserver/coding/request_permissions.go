package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type requestPermissionsIn struct {
	ToolName   string         `json:"tool_name"`
	Permission string         `json:"permission"`
	Reason     string         `json:"reason"`
	Arguments  map[string]any `json:"arguments"`
	Scope      string         `json:"scope"`
	TTLSeconds int            `json:"ttl_seconds"`
}

// requestPermissions never grants silently: v0.1 has no elicitation, so
// outside dangerous mode the answer is ELICITATION_UNSUPPORTED.
func (s *Server) requestPermissions() tool {
	return define("request_permissions", "Ask for a permission an exec_command or apply_patch call needs; without interactive approval it reports that it cannot be granted.",
		hints("Request permissions", true, false, false, false),
		object([]string{"tool_name", "permission", "reason", "arguments"},
			"tool_name", str("The tool that needs the permission").oneOf("exec_command", "apply_patch"),
			"permission", str("The permission").oneOf("network", "destructive_command", "long_timeout", "sensitive_env",
				"shell_expansion", "inline_script", "privileged_executable", "write_generated_or_ignored"),
			"reason", str("Why it is needed").nonEmpty(),
			"arguments", &schema{Type: "object", Description: "The arguments of the call that needs it"},
			"scope", str("How long a grant would last").def("once").oneOf("once", "session"),
			"ttl_seconds", integer("Lifetime of a grant, in seconds", 1, 3600).def(300),
		),
		map[string]any{"status": tString, "grant_id": tNullStr, "expires_at": tNullStr, "constraints": tObject},
		func(ctx context.Context, in requestPermissionsIn) (map[string]any, error) {
			requested := map[string]any{"tool_name": in.ToolName, "permission": in.Permission, "reason": in.Reason,
				"arguments": in.Arguments, "scope": in.Scope, "ttl_seconds": in.TTLSeconds}
			if s.opts.Dangerous {
				return map[string]any{"status": "granted", "grant_id": "dangerously-skip-all-permissions", "expires_at": nil,
					"constraints": map[string]any{"mode": "dangerously_skip_all_permissions", "workspace": s.root.Path, "requested": requested},
					"warnings":    []string{"dangerous mode auto-grants gated operations; no prompt was shown"}}, nil
			}
			return map[string]any{"status": "unsupported", "grant_id": nil, "expires_at": nil, "constraints": map[string]any{}},
				workspace.Errorf(workspace.CodeElicitationUnsupported, map[string]any{"requested": requested},
					"permission not granted: this server cannot ask the user (elicitation is not available), so %s cannot be granted", in.Permission)
		})
}
