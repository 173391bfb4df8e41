package run

import (
	"fmt"
)

// Sending is a message the engine queued in the outbox for the task's
// agent, until the outbox says it was delivered or could not be.
type Sending struct {
	Message
	Key     string `json:"key"`
	Attempt int    `json:"attempt"`
	// Life is the life of the task's agent it was queued for (its
	// outbox is that life's).
	Life string `json:"life,omitempty"`
}

// SendingOf is how the engine names msg for task t's current attempt: the
// outbox queues one message per key, so each kind goes once an attempt
// (checks: once per tree).
func SendingOf(r *Run, t *TaskRun, msg Message) Sending {
	// The attempt's start time too: a retry past the last attempt reuses
	// its number, and a run registered again reuses its name; neither may
	// find an earlier attempt's message delivered.
	key := fmt.Sprintf("run %s task %s attempt %d started %d", r.Name, t.ID, t.Attempt, t.StartedAt.UnixNano())
	if msg.Tree != "" {
		key += " tree " + msg.Tree
	}
	return Sending{Message: msg, Key: key, Attempt: t.Attempt}
}
