package policy

import (
	"sort"

	"github.com/sudocode/sudocode/internal/workspace"
)

// sensitiveKeys lists the offending keys of env, sorted.
func sensitiveKeys(env map[string]string) []string {
	var keys []string
	for k, v := range env {
		if workspace.SensitiveEnv(k, v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
