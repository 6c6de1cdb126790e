package dashboard

import "github.com/sudocode/sudocode/internal/orchestrator"

// TaskView is a task as the page gets it: the task, and why it failed as
// a sentence a person reads (the error's details stay beside it).
type TaskView struct {
	orchestrator.Task
	Failure string `json:"failure,omitempty"`
	// State is how the task reads (orchestrator.Task.State): merged,
	// conflicted and ended apart from completed.
	State string `json:"state"`
	// StateText is State in words (orchestrator.StateText): what lists, cards and
	// filters show, so a finished task waiting for review reads so.
	StateText string `json:"state_text"`
}

func viewOf(t orchestrator.Task) TaskView {
	return TaskView{Task: t, Failure: t.Error.Sentence(), State: t.State(), StateText: orchestrator.StateText(t.State())}
}
