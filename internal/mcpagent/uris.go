package mcpagent

import (
	"net/url"
	"strings"
)

// Resource URIs. Template variables that may hold a slash (a branch name,
// a project path) are percent-encoded in the URIs this server makes
// (branch://feature%2Fauth/tasks); a branch name is also read as written.
const (
	uriStatus    = "agent://status"
	uriTaskList  = "task://list"
	uriTasks     = "agent://tasks"
	taskScheme   = "task://"
	logsSuffix   = "/logs"
	resultSuffix = "/result"
)

func taskURI(id string) string   { return taskScheme + id }
func logsURI(id string) string   { return taskScheme + id + logsSuffix }
func resultURI(id string) string { return taskScheme + id + resultSuffix }
func branchURI(b string) string  { return "branch://" + url.PathEscape(b) + "/tasks" }
func projectURI(p string) string { return "project://" + url.PathEscape(p) + "/status" }
func sessionURI(kind, id string) string {
	return "session://" + strings.ToLower(kind) + "/" + url.PathEscape(id)
}

// resourceRef is a parsed resource URI: which resource, and the
// variables of its template that kind has.
type resourceRef struct {
	kind                   string // status, tasks, task, logs, result, session, branch, project, log
	task                   string // task, logs, result
	sessionType, sessionID string // session
	branch                 string // branch
	project                string // project
	logType, date          string // log
}

// parseURI recognizes every resource this server serves.
func parseURI(uri string) (resourceRef, bool) {
	switch uri {
	case uriStatus:
		return resourceRef{kind: "status"}, true
	case uriTaskList, uriTasks:
		return resourceRef{kind: "tasks"}, true
	}
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || rest == "" {
		return resourceRef{}, false
	}
	// A branch name keeps its slashes as users write it
	// (branch://feature/x/tasks), or has them percent-encoded.
	if name, ok := strings.CutSuffix(rest, "/tasks"); scheme == "branch" && ok {
		if v, err := url.PathUnescape(name); err == nil && v != "" {
			return resourceRef{kind: "branch", branch: v}, true
		}
		return resourceRef{}, false
	}
	first, second, two := strings.Cut(rest, "/")
	v1, err1 := url.PathUnescape(first)
	v2, err2 := url.PathUnescape(second)
	if err1 != nil || err2 != nil || v1 == "" {
		return resourceRef{}, false
	}
	switch {
	case scheme == "task" && !two:
		return resourceRef{kind: "task", task: v1}, true
	case scheme == "task" && second == "logs":
		return resourceRef{kind: "logs", task: v1}, true
	case scheme == "task" && second == "result":
		return resourceRef{kind: "result", task: v1}, true
	case scheme == "session" && two && v2 != "" && !strings.Contains(second, "/"):
		return resourceRef{kind: "session", sessionType: v1, sessionID: v2}, true
	case scheme == "branch" && second == "tasks":
		return resourceRef{kind: "branch", branch: v1}, true
	case scheme == "project" && second == "status":
		return resourceRef{kind: "project", project: v1}, true
	case scheme == "log" && two && v2 != "" && !strings.Contains(second, "/"):
		return resourceRef{kind: "log", logType: v1, date: v2}, true
	}
	return resourceRef{}, false
}
