package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Observation is what the engine saw of one task's agent at one moment.
// The judge only reads it: gathering it (the record, git, the checks) is
// the engine's work.
type Observation struct {
	Now time.Time
	// Status is the agent's status: working, waiting, idle, exited.
	Status     state.Status
	WaitingFor string
	// Limit is the usage limit of a limited agent.
	Limit    *state.Limit
	ExitCode *int // set when exited, if known
	// Done is what the agent said with owt done this turn, if anything.
	Done *state.DoneSignal
	// LastActivity is when the agent's last hook or screen change was:
	// idle that long with nothing new is "settled", and activity after a
	// message owt sent means the agent took it up.
	LastActivity time.Time
	// Commits are the commits on the task's branch ahead of its start
	// (and of Base).
	Commits int
	// Unchanged: the branch's tree is the start's (its commits, if any,
	// change nothing), or merged into Base it changes nothing.
	Unchanged bool
	// Base is the base whose commits since the start were not counted as
	// the task's (the agent merged or pulled it), "" when it did not move.
	Base string
	// OffBranch says where the worktree's HEAD is when it is not on the
	// task's branch (or that branch is gone): "" when it is.
	OffBranch string
	// Uncommitted are the files changed and not committed in the worktree.
	Uncommitted []string
	// Tree is the tree of the worktree's HEAD: what the checks run on.
	Tree string
}

// Criteria are the task's rules for done.
type Criteria struct {
	Settle     time.Duration
	AllowEmpty bool
	HasChecks  bool
}

// CriteriaOf are the rules for done of task t in plan p.
func CriteriaOf(p *Plan, t *Task) Criteria {
	return Criteria{Settle: time.Duration(p.Settle), AllowEmpty: t.AllowEmpty, HasChecks: len(p.ChecksOf(t)) > 0 || p.ReviewOf(t)}
}

// CheckResult is one run of a task's checks on one tree.
type CheckResult struct {
	Tree   string `json:"tree"`
	Passed bool   `json:"passed"`
	// Output is what a failing check said (its argv, exit and last lines).
	Output string    `json:"output,omitempty"`
	At     time.Time `json:"at"`
	// Unavailable says why the AI review, required by the plan, gave no
	// verdict (a missing tool, a timeout): not the agent's to fix, so the
	// user is asked.
	Unavailable string `json:"unavailable,omitempty"`
	// Wrote are the uncommitted files the checks wrote (a build's output),
	// each with what it was then (checkOutputMark): not the agent's work
	// while it is still what the checks left.
	Wrote map[string]string `json:"wrote,omitempty"`
}

// Message kinds: each is sent at most once (checks: once per tree).
const (
	MsgNudge  = "nudge"  // idle without any result
	MsgCommit = "commit" // uncommitted work
	MsgChecks = "checks" // a check fails on this tree
)

// Memo is what the judge must remember about a task between two
// judgements: the messages the agent got (so each goes once) and the last
// check result (so checks run once per tree). It is kept on the task, so
// it survives restarts, and is reset when a new attempt starts.
type Memo struct {
	NudgedAt       time.Time    `json:"nudged_at,omitzero"`
	CommitAskedAt  time.Time    `json:"commit_asked_at,omitzero"`
	ChecksSentAt   time.Time    `json:"checks_sent_at,omitzero"`
	ChecksSentTree string       `json:"checks_sent_tree,omitempty"`
	Checks         *CheckResult `json:"checks,omitempty"`
}

// Delivered notes that message m reached the agent at time at (the outbox
// confirmed it): the judge will not send it again.
func (m *Memo) Delivered(msg Message, at time.Time) {
	switch msg.Kind {
	case MsgNudge:
		m.NudgedAt = at
	case MsgCommit:
		m.CommitAskedAt = at
	case MsgChecks:
		m.ChecksSentAt, m.ChecksSentTree = at, msg.Tree
	}
}

// Action is what the engine should do about a task after a judgement.
type Action string

// Actions of a verdict.
const (
	KeepWaiting Action = "wait"       // nothing to do yet
	RunChecks   Action = "run_checks" // run the checks on Verdict.Tree, then judge again
	SendMessage Action = "send"       // deliver Verdict.Message through the outbox
	MarkDone    Action = "done"       // the task is done on Verdict.Evidence
	AskUser     Action = "needs_you"  // owt cannot go on: Verdict.Why says why
	MarkFailed  Action = "fail"       // the attempt failed: Verdict.Failure
)

// Message is text owt owes the agent.
type Message struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	Tree string `json:"tree,omitempty"` // for checks: the tree they failed on
}

// Verdict is the judge's answer, with the evidence it saw.
type Verdict struct {
	Action   Action
	Why      string   // for AskUser and KeepWaiting: in words a user reads
	Tree     string   // for RunChecks
	Message  *Message // for SendMessage
	Failure  *Failure // for MarkFailed
	Evidence Evidence
}

// NudgeText is the one nudge an idle agent without any result gets.
const NudgeText = "If your task is finished, commit your work and run `owt done --summary \"…\"`. " +
	"If you are blocked, run `owt done --blocked \"your question\"`; if it cannot be done, `owt done --fail \"why\"`."

// Judge decides whether a task is done from what was observed of its
// agent. Done needs all of: a signal (owt done, exit 0, or idle held for
// settle with no hook or screen change); not waiting and no --fail or
// --blocked; HEAD on the task's branch; commits on it that change the
// tree against the start, unless allow_empty; no uncommitted files; every
// check passing on the tree. A working agent is never judged: its turn is
// not over, whatever one hook said.
func Judge(o Observation, c Criteria, m Memo) Verdict {
	ev := evidenceOf(o, m)
	v := func(a Action, why string) Verdict { return Verdict{Action: a, Why: why, Evidence: ev} }
	alive := o.Status != state.Exited

	switch {
	case o.Done != nil && !o.Done.Fail.Empty():
		return Verdict{Action: MarkFailed, Evidence: ev, Failure: &Failure{Class: FailAgent, Error: o.Done.Fail, At: o.Now}}
	case o.Done != nil && !o.Done.Blocked.Empty():
		return v(AskUser, "blocked: "+o.Done.Blocked.Block())
	case o.Status == state.Waiting:
		return v(AskUser, waitingWhy(o.WaitingFor))
	case o.Status == state.Limited && o.Limit != nil && !o.Limit.Reset.IsZero() && !o.Limit.Nudged:
		// It goes on after the reset: the engine nudges it then.
		return v(KeepWaiting, "the agent hit a "+o.Limit.Why(o.Now))
	case o.Status == state.Limited && o.Limit != nil && o.Limit.Nudged:
		return v(AskUser, "the agent hit a "+o.Limit.Why(o.Now)+" and did not go on after it")
	case o.Status == state.Limited:
		return v(AskUser, "the agent hit a "+o.Limit.Why(o.Now)+" (the tool gave no reset time)")
	case o.Status == state.Exited && o.ExitCode != nil && *o.ExitCode != 0:
		return Verdict{Action: MarkFailed, Evidence: ev, Failure: &Failure{Class: FailCrash, Error: untrusted.From(fmt.Sprintf("the agent exited with code %d", *o.ExitCode)), At: o.Now}}
	case o.Status != state.Idle && o.Status != state.Exited:
		return v(KeepWaiting, "the agent is "+string(o.Status))
	}

	if !alive && ev.Signal == "" {
		return v(AskUser, "the agent exited (exit code unknown) without owt done")
	}
	settled := o.Status == state.Idle && o.Now.Sub(o.LastActivity) >= c.Settle
	if ev.Signal == "" && !settled {
		return v(KeepWaiting, "idle, not settled yet")
	}
	// From here on the agent either gave a signal or has been idle for
	// settle: what it left decides.
	if o.OffBranch != "" {
		return v(AskUser, o.OffBranch)
	}
	if len(o.Uncommitted) > 0 {
		return askOnce(o, ev, alive, m.CommitAskedAt, commitMessage(o.Uncommitted),
			"uncommitted work (owt never commits for the agent)")
	}
	if (o.Commits == 0 || o.Unchanged) && !c.AllowEmpty {
		return noWork(o, ev, alive, m)
	}
	if ev.Signal == "" {
		ev.Signal = "settled"
	}
	if !c.HasChecks {
		return Verdict{Action: MarkDone, Evidence: ev}
	}
	if m.Checks == nil || m.Checks.Tree != o.Tree {
		return Verdict{Action: RunChecks, Tree: o.Tree, Why: "checks run on " + Short(o.Tree), Evidence: ev}
	}
	if m.Checks.Passed {
		return Verdict{Action: MarkDone, Evidence: ev}
	}
	if m.Checks.Unavailable != "" {
		return v(AskUser, "the AI review is unavailable on "+Short(o.Tree)+": "+m.Checks.Unavailable)
	}
	sentAt := time.Time{}
	if m.ChecksSentTree == o.Tree {
		sentAt = m.ChecksSentAt
	}
	msg := Message{Kind: MsgChecks, Tree: o.Tree, Text: "owt's checks fail on your last commit; fix them and commit:\n" + m.Checks.Output}
	return askOnce(o, ev, alive, sentAt, msg, "checks fail on "+Short(o.Tree))
}

// noWork is the verdict on a turn that left nothing on the task's branch:
// no commits, or commits that make no change (judged by the tree, as owt
// cleanup does).
func noWork(o Observation, ev Evidence, alive bool, m Memo) Verdict {
	what := "no commits ahead of the task's start"
	if o.Commits > 0 {
		what = fmt.Sprintf("no change against the task's start (its %d commit(s) leave the tree as it was)", o.Commits)
	}
	if o.Base != "" {
		what += " other than " + o.Base + "'s (what it merged or pulled from " + o.Base + " is not the task's work)"
	}
	if ev.Signal == "owt done" {
		return Verdict{Action: AskUser, Why: "owt done, but " + what + " (allow_empty is not set)", Evidence: ev}
	}
	problem := "idle without any result"
	if o.Commits > 0 {
		problem = "idle with " + what
	}
	return askOnce(o, ev, alive, m.NudgedAt, Message{Kind: MsgNudge, Text: NudgeText}, problem)
}

// askOnce sends msg unless it was sent (sentAt); once the agent took it
// up (activity after it) and the problem is still there, the user is
// needed. An exited agent cannot be told anything.
func askOnce(o Observation, ev Evidence, alive bool, sentAt time.Time, msg Message, problem string) Verdict {
	switch {
	case !alive:
		return Verdict{Action: AskUser, Why: problem + ", and the agent exited", Evidence: ev}
	case sentAt.IsZero():
		return Verdict{Action: SendMessage, Message: &msg, Why: problem, Evidence: ev}
	case !o.LastActivity.After(sentAt):
		return Verdict{Action: KeepWaiting, Why: problem + ": told the agent, waiting for it to act", Evidence: ev}
	}
	return Verdict{Action: AskUser, Why: problem + ", still after one message to the agent", Evidence: ev}
}

// evidenceOf is what the observation shows, as owt run status keeps it.
func evidenceOf(o Observation, m Memo) Evidence {
	ev := Evidence{
		Waiting: o.Status == state.Waiting, Commits: o.Commits, NoChange: o.Commits > 0 && o.Unchanged,
		Dirty: len(o.Uncommitted) > 0, Uncommitted: o.Uncommitted, At: o.Now,
	}
	switch {
	case o.Done != nil && o.Done.Fail.Empty() && o.Done.Blocked.Empty():
		ev.Signal, ev.Summary = "owt done", o.Done.Summary
	case o.Status == state.Exited && o.ExitCode != nil && *o.ExitCode == 0:
		ev.Signal = "exit 0"
	}
	if m.Checks != nil && m.Checks.Tree == o.Tree {
		ev.Tree = m.Checks.Tree
		ev.Checks = "passed"
		if !m.Checks.Passed {
			ev.Checks = "failed: " + FirstLine(m.Checks.Output)
		}
	}
	return ev
}

func waitingWhy(what string) string {
	if what == "" {
		return "the agent waits for you"
	}
	return "the agent waits for you: " + what
}

// commitMessage asks the agent to commit the files it left.
func commitMessage(files []string) Message {
	shown := files
	if len(shown) > 10 {
		shown = shown[:10]
	}
	text := "You left uncommitted changes: " + strings.Join(shown, ", ")
	if len(files) > len(shown) {
		text += fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	text += ". Commit what belongs to your task (owt never commits for you), then run `owt done`."
	return Message{Kind: MsgCommit, Text: text}
}

func Short(tree string) string {
	if len(tree) > 12 {
		return tree[:12]
	}
	return tree
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
