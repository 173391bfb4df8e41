package run

import (
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// StateVersion is the schema version written into every run file.
const StateVersion = 1

// RunState is where a run is in its life.
type RunState string

// Run states. The engine starts tasks only in an active run.
const (
	Active   RunState = "active"   // tasks start as they become ready
	Paused   RunState = "paused"   // nothing new starts; owt run resume goes on
	Stopped  RunState = "stopped"  // nothing new starts; running agents are left alone
	Finished RunState = "finished" // every task reached an end state
	// RunFailed: no task can go on without the user (each ended, failed
	// or blocked), and some failed or are blocked: owt run retry, skip or
	// cancel them (end.go).
	RunFailed RunState = "failed"
)

// TaskState is where one task is.
type TaskState string

// Task states, as owt run status shows them.
const (
	Pending   TaskState = "pending"   // waits for its dependencies or a free slot
	Blocked   TaskState = "blocked"   // a dependency failed or was cancelled, or parents conflict
	Starting  TaskState = "starting"  // its worktree and agent are being made
	Running   TaskState = "running"   // its agent works on it
	Backoff   TaskState = "backoff"   // failed; tried again at NextStart
	NeedsYou  TaskState = "needs_you" // owt cannot go on without the user
	Done      TaskState = "done"      // finished on evidence
	Landed    TaskState = "landed"    // done and merged into the run's into branch
	Failed    TaskState = "failed"    // attempts exhausted
	Skipped   TaskState = "skipped"   // the user skipped it; counts as done for its dependents
	Cancelled TaskState = "cancelled" // the user cancelled it
)

// Ended reports whether a task in state s will never run again by itself.
func (s TaskState) Ended() bool {
	switch s {
	case Done, Landed, Failed, Skipped, Cancelled:
		return true
	}
	return false
}

// Occupies reports whether a task in state s holds one of the run's
// max_concurrent slots: its agent is alive, working or waiting for the user.
func (s TaskState) Occupies() bool {
	return s == Starting || s == Running || s == NeedsYou
}

// Run is the state of one registered run: the plan as it was registered
// (later edits to the file change nothing) and each task's progress.
type Run struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	Repo    string `json:"repo"`
	// Host is where the run's repo lives and its engine runs: "local".
	// A task placed on a configured host records that host in its own
	// TaskRun.Host once it started there.
	Host string `json:"host"`
	// Socket is the tmux server the run was registered under: only that
	// server's monitor drives it.
	Socket string `json:"socket,omitempty"`
	// Server is the identity of that server's run (host:pid:start time,
	// tmux.ServerIdentity): after a restart of the server it is another,
	// and the run waits for owt run resume.
	Server string   `json:"server,omitempty"`
	State  RunState `json:"state"`
	// Why says why a paused run waits ("the tmux server restarted …").
	Why string `json:"why,omitempty"`
	// Recover is set by owt run resume when it adopted a new tmux server:
	// the engine's next look gives lost sessions their agents back.
	Recover bool `json:"recover,omitempty"`
	// Base is the branch tasks start from, resolved at registration.
	Base      string     `json:"base"`
	Into      string     `json:"into,omitempty"`
	Plan      Plan       `json:"plan"`
	Tasks     []*TaskRun `json:"tasks"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	// IntoHeld is how into's ref was stored (refMark) when it last held
	// every landing: while it is the same, NoteLost asks git nothing.
	IntoHeld string `json:"into_held,omitempty"`
	// BudgetPaused: the run was paused at its budget_tokens once (a
	// resumed run goes on past it).
	BudgetPaused bool `json:"budget_paused,omitempty"`
}

// TaskRun is the progress of one task.
type TaskRun struct {
	ID      string    `json:"id"`
	State   TaskState `json:"state"`
	Since   time.Time `json:"since"`
	Attempt int       `json:"attempt"` // attempts started so far
	// Granted are the attempts owt run retry gave beyond the plan's
	// max_attempts (AttemptsOf): the count of attempts never goes down.
	Granted int `json:"granted,omitempty"`
	// StartedAt is when the current attempt started: with the attempt
	// number it names the attempt's messages.
	StartedAt time.Time `json:"started_at,omitzero"`
	// Name and Branch are the task's worktree and branch once it started.
	Name   string `json:"name"`
	Branch string `json:"branch"`
	// Host is the configured host its agent runs on ("": here), once it
	// started there.
	Host string `json:"host,omitempty"`
	// HostRepo is the path there of the repository its agent works in
	// (the host's stream lists the agents of every repository there).
	HostRepo string `json:"host_repo,omitempty"`
	// NextStart is when a task in backoff may start again.
	NextStart time.Time `json:"next_start,omitzero"`
	// Failure is why the last attempt failed.
	Failure *Failure `json:"failure,omitempty"`
	// Evidence is what the last judgement of "done" saw.
	Evidence *Evidence `json:"evidence"`
	// BlockedBy are the dependencies that hold a blocked task (failed,
	// cancelled or blocked themselves); retry or skip on them releases it.
	BlockedBy []string `json:"blocked_by,omitempty"`
	// Memo is what the done judge remembers of this attempt: the messages
	// the agent got and the last check result.
	Memo Memo `json:"memo"`
	// Clock is this attempt's active time, for its timeout.
	Clock ActiveClock `json:"clock"`
	// Why says why a task needs the user, or what it waits for.
	Why string `json:"why,omitempty"`
	// Told is the Since of the state the user was last told about (a
	// task that needs them is told once: end.go).
	Told time.Time `json:"told,omitzero"`
	// ToldText is the notice then given: a new problem in the same
	// state (another why) is told again.
	ToldText string `json:"told_text,omitempty"`
	// Conflict is set while the task is blocked before it started because
	// its parents' branches conflict (BlockedBy is empty then).
	Conflict *ParentConflict `json:"conflict,omitempty"`
	// PR is the pull request opened for the done task's branch ([run] pr);
	// PRError why the last try failed, PRTried when (tried again later).
	PR      int       `json:"pr,omitempty"`
	PRError string    `json:"pr_error,omitempty"`
	PRTried time.Time `json:"pr_tried,omitzero"`
	// Owed is the message or check owt owes the agent and has not
	// delivered yet: nudge, commit, checks (queued in the outbox), or
	// run_checks (running).
	Owed string `json:"owed,omitempty"`
	// Sending is the message queued in the outbox for the agent, until
	// the outbox delivers it or gives up.
	Sending *Sending `json:"sending,omitempty"`
	// LandedTip is the commit of the task's branch that landed in into:
	// while into holds it, the task has landed (into.go).
	LandedTip string `json:"landed_tip,omitempty"`
	// Resolves counts the landing conflicts handed to the agent to resolve
	// in its worktree ([run] on_conflict = "resolve"): one per task; a
	// conflict after it needs the user.
	Resolves int `json:"resolves,omitempty"`
}

// Failure is one failed attempt: its class (start, crash, agent, timeout,
// stall, land) and what happened.
type Failure struct {
	Class string              `json:"class"`
	Error untrusted.Untrusted `json:"error"`
	At    time.Time           `json:"at"`
}

// Evidence is what owt saw when it judged whether a task is done: all of
// a signal, not waiting, commits (unless allow_empty), a clean tree and
// passing checks.
type Evidence struct {
	Signal  string              `json:"signal,omitempty"` // "owt done", "exit 0", "settled"
	Summary untrusted.Untrusted `json:"summary,omitzero"` // what the agent said with owt done --summary
	Waiting bool                `json:"waiting,omitempty"`
	Commits int                 `json:"commits"`
	// NoChange: the commits change nothing against the task's start.
	NoChange bool `json:"no_change,omitempty"`
	Dirty    bool `json:"dirty,omitempty"`
	// Uncommitted are the files the agent left uncommitted.
	Uncommitted []string  `json:"uncommitted,omitempty"`
	Checks      string    `json:"checks,omitempty"` // "passed", "failed: …", "" when not run
	Tree        string    `json:"tree,omitempty"`   // the tree the checks ran on
	At          time.Time `json:"at"`
}

// NewRun is the state of a run of plan p just registered: every task pending.
func NewRun(name, repo, base string, p *Plan, now time.Time) *Run {
	into := p.Into
	if p.IntoBase {
		into = base
	}
	r := &Run{
		Version: StateVersion, Name: name, Repo: repo, Host: "local", State: Active,
		Base: base, Into: into, Plan: *p, CreatedAt: now, UpdatedAt: now,
	}
	for _, t := range p.Tasks {
		r.Tasks = append(r.Tasks, &TaskRun{ID: t.ID, State: Pending, Since: now})
	}
	return r
}

// Task returns the progress of the task called id.
func (r *Run) Task(id string) (*TaskRun, bool) {
	for _, t := range r.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return nil, false
}

// Counts says how many tasks are in each state.
func (r *Run) Counts() map[TaskState]int {
	n := map[TaskState]int{}
	for _, t := range r.Tasks {
		n[t.State]++
	}
	return n
}
