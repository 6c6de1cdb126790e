package orchestrator

import (
	"bytes"
	"encoding/json"
)

// keepUsage is result, end_task's replacement of a task's result, still
// holding the task's usage (old's task_usage) so that the task's and its
// issue's costs do not lose what its runs spent. result is kept as given
// but for that one key, put first; a result that is not a JSON object, or
// names task_usage itself, is taken as it is.
func keepUsage(old, result json.RawMessage) json.RawMessage {
	var prev runResult
	if json.Unmarshal(old, &prev) != nil || prev.TaskUsage.CostUSD == nil && prev.TaskUsage.Tokens == nil {
		return result
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil || fields == nil {
		return result
	}
	if _, ok := fields["task_usage"]; ok {
		return result
	}
	u, err := json.Marshal(prev.TaskUsage)
	if err != nil {
		return result
	}
	rest := bytes.TrimSpace(result)[1:] // after the object's "{"
	var b bytes.Buffer
	b.WriteString(`{"task_usage":`)
	b.Write(u)
	if len(fields) > 0 {
		b.WriteByte(',')
	}
	b.Write(rest)
	return b.Bytes()
}
