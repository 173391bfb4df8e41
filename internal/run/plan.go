// The plan file of a run: a set of tasks with dependencies and the run's
// settings, its strict parser and validator (every problem at once), the
// waves its tasks run in, and a plan drafted by an agent (DraftPrompt,
// PlanFromAnswer).

package run

import (
	"fmt"
	"time"
)

// Defaults for what a plan leaves out.
const (
	DefaultMaxConcurrent = 3
	DefaultTimeout       = 45 * time.Minute
	DefaultSettle        = 30 * time.Second
	DefaultMaxAttempts   = 3
	DefaultBackoff       = 30 * time.Second
	DefaultBackoffMax    = 15 * time.Minute
	DefaultStall         = 15 * time.Minute
)

// What a timed-out or stalled attempt leads to (the plan's on_timeout).
const (
	OnTimeoutNeedsYou = "needs_you" // the agent is left running; the user decides
	OnTimeoutRetry    = "retry"     // the attempt fails and is retried after the backoff
)

// Formats a plan file can be written in.
const (
	FormatRun   = "run"   // owt's own: [run], [run.retry], [[task]]
	FormatBatch = "batch" // the seed's tasks.toml: [batch], [[tasks]]
)

// Plan is a parsed, validated plan file.
type Plan struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Base is the branch tasks start from; "" means the branch checked out
	// where the run is started (resolved when it is registered).
	Base string `json:"base,omitempty"`
	// Into is the integration branch done tasks land in, in dependency
	// order; "" lands nothing (each task's branch waits for review).
	Into string `json:"into,omitempty"`
	// IntoBase comes from the seed's auto_ship = true: done work lands in
	// the base branch itself, so Into is set to the base once it is known.
	IntoBase      bool       `json:"into_base,omitempty"`
	MaxConcurrent int        `json:"max_concurrent"`
	Tool          string     `json:"tool,omitempty"` // "" is the configured default tool
	Timeout       Duration   `json:"timeout"`
	Settle        Duration   `json:"settle"`
	Checks        [][]string `json:"checks,omitempty"`
	Retry         Retry      `json:"retry"`
	Tasks         []Task     `json:"tasks"`
	// Stall is how long a working agent may go without a hook or a screen
	// change before its attempt counts as stalled; 0 never.
	Stall Duration `json:"stall"`
	// OnTimeout is what a timeout or a stall leads to: OnTimeoutNeedsYou
	// ("" reads as it) or OnTimeoutRetry.
	OnTimeout string `json:"on_timeout,omitempty"`
	// OnConflict is what a landing conflict leads to: "needs_you", or
	// "resolve" (once per task, the agent resolves it in its worktree,
	// owt checks it, and the landing is tried again); "" is the config's
	// [run] on_conflict.
	OnConflict string `json:"on_conflict,omitempty"`
	// PR: each done task's branch is pushed and gets a pull request
	// (owt pr), in a run without into.
	PR bool `json:"pr,omitempty"`
	// BudgetTokens, when set, is the most tokens the run's agents may
	// use together (input, output, cache writes and reads, as owt usage
	// counts them): once they reach it the run pauses, starts no new
	// task, and needs the user.
	BudgetTokens int64 `json:"budget_tokens,omitempty"`
	// Review: every task's work must pass the AI review (owt's [review]
	// tool) as one more check; a fail goes back to the agent once.
	Review bool `json:"review,omitempty"`
	// Host and Labels place the tasks that set neither on a host of the
	// user's config ([hosts.NAME]): the one named, or one with every
	// label. Both empty: here.
	Host   string   `json:"host,omitempty"`
	Labels []string `json:"labels,omitempty"`
}

// Retry says how often and how soon a failed task is tried again.
type Retry struct {
	MaxAttempts int      `json:"max_attempts"`
	Backoff     Duration `json:"backoff"`
	BackoffMax  Duration `json:"backoff_max"`
}

// Task is one node of the graph.
type Task struct {
	ID        string   `json:"id"`
	Task      string   `json:"task"`
	DependsOn []string `json:"depends_on,omitempty"`
	Tool      string   `json:"tool,omitempty"` // "" is the plan's tool
	// Checks, when set (even to an empty list), replace the plan's checks.
	Checks     *[][]string `json:"checks,omitempty"`
	Timeout    Duration    `json:"timeout,omitempty"` // 0 is the plan's timeout
	AllowEmpty bool        `json:"allow_empty,omitempty"`
	// Review, when set, overrides the plan's review for this task.
	Review *bool `json:"review,omitempty"`
	// Template shapes the agent's first prompt (owt new --template);
	// Issue makes GitHub issue N the task (owt new --issue).
	Template string `json:"template,omitempty"`
	Issue    int    `json:"issue,omitempty"`
	// Host and Labels place the task on a host (the plan's when both are
	// empty): the one named, or one with every label.
	Host   string   `json:"host,omitempty"`
	Labels []string `json:"labels,omitempty"`
}

// TaskByID returns the task called id.
func (p *Plan) TaskByID(id string) (*Task, bool) {
	for i := range p.Tasks {
		if p.Tasks[i].ID == id {
			return &p.Tasks[i], true
		}
	}
	return nil, false
}

// ChecksOf is what must pass before task t counts as done.
func (p *Plan) ChecksOf(t *Task) [][]string {
	if t.Checks != nil {
		return *t.Checks
	}
	return p.Checks
}

// ReviewOf says whether task t's work must pass the AI review.
func (p *Plan) ReviewOf(t *Task) bool {
	if t.Review != nil {
		return *t.Review
	}
	return p.Review
}

// ToolOf is the tool task t runs ("" is the configured default).
func (p *Plan) ToolOf(t *Task) string {
	if t.Tool != "" {
		return t.Tool
	}
	return p.Tool
}

// PlaceOf is where task t is to run: a host's name, or labels a host
// must all have; both empty, here.
func (p *Plan) PlaceOf(t *Task) (host string, labels []string) {
	if t.Host != "" || len(t.Labels) > 0 {
		return t.Host, t.Labels
	}
	return p.Host, p.Labels
}

// TimeoutOf is the active time an attempt of task t may take.
func (p *Plan) TimeoutOf(t *Task) time.Duration {
	if t.Timeout > 0 {
		return time.Duration(t.Timeout)
	}
	return time.Duration(p.Timeout)
}

// Duration is a time.Duration kept as "45m" in the run's state file, so
// the file reads the way the plan was written.
type Duration time.Duration

// MarshalText writes the duration as Go writes it ("45m0s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads "45m", "1m30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration: %q", b)
	}
	*d = Duration(v)
	return nil
}
