package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

const settle = 30 * time.Second

// seen is an idle agent, quiet for long enough to have settled, with one
// commit on tree "t1" and a clean worktree: done unless a case changes it.
func seen(mod func(*Observation)) Observation {
	o := Observation{Now: t0, Status: state.Idle, LastActivity: t0.Add(-time.Minute), Commits: 1, Tree: "t1"}
	if mod != nil {
		mod(&o)
	}
	return o
}

func code(n int) *int { return &n }

func TestJudge(t *testing.T) {
	plain := Criteria{Settle: settle}
	checked := Criteria{Settle: settle, HasChecks: true}
	passed := Memo{Checks: &CheckResult{Tree: "t1", Passed: true}}
	failing := Memo{Checks: &CheckResult{Tree: "t1", Output: "go test: FAIL x_test.go:3"}}
	sentChecks := failing
	sentChecks.ChecksSentAt, sentChecks.ChecksSentTree = t0.Add(-2*time.Minute), "t1"
	done := &state.DoneSignal{Summary: untrusted.From("models added"), At: t0.Add(-time.Minute)}

	cases := []struct {
		name   string
		obs    Observation
		crit   Criteria
		memo   Memo
		action Action
		signal string // the evidence's signal, when it matters
		kind   string // the message kind, for SendMessage
		class  string // the failure class, for MarkFailed
	}{
		{name: "settled with commits, clean, no checks: done", obs: seen(nil), crit: plain, action: MarkDone, signal: "settled"},
		{name: "owt done with commits: done, summary kept", obs: seen(func(o *Observation) { o.Done = done; o.LastActivity = t0 }), crit: plain, action: MarkDone, signal: "owt done"},
		{name: "exit 0 with commits: done", obs: seen(func(o *Observation) { o.Status = state.Exited; o.ExitCode = code(0) }), crit: plain, action: MarkDone, signal: "exit 0"},
		{name: "idle but not settled: wait", obs: seen(func(o *Observation) { o.LastActivity = t0.Add(-time.Second) }), crit: plain, action: KeepWaiting},
		{name: "working, even with owt done: wait (one hook is never done)", obs: seen(func(o *Observation) { o.Status = state.Working; o.Done = done }), crit: plain, action: KeepWaiting},
		{name: "a waiting agent is never done", obs: seen(func(o *Observation) { o.Status = state.Waiting; o.WaitingFor = "permission"; o.Done = done }), crit: plain, action: AskUser},
		{name: "owt done --fail: failed, class agent", obs: seen(func(o *Observation) { o.Done = &state.DoneSignal{Fail: untrusted.From("no API for that"), At: t0} }), crit: plain, action: MarkFailed, class: FailAgent},
		{name: "owt done --blocked: needs you", obs: seen(func(o *Observation) { o.Done = &state.DoneSignal{Blocked: untrusted.From("which DB?"), At: t0} }), crit: plain, action: AskUser},
		{name: "exit 3: failed, class crash", obs: seen(func(o *Observation) { o.Status = state.Exited; o.ExitCode = code(3) }), crit: plain, action: MarkFailed, class: FailCrash},
		{name: "exited, code unknown, no signal: needs you", obs: seen(func(o *Observation) { o.Status = state.Exited }), crit: plain, action: AskUser},
		{name: "idle without commits: one nudge", obs: seen(func(o *Observation) { o.Commits = 0 }), crit: plain, action: SendMessage, kind: MsgNudge},
		{name: "nudged, not taken up yet: wait", obs: seen(func(o *Observation) { o.Commits = 0 }), crit: plain, memo: Memo{NudgedAt: t0.Add(-10 * time.Second)}, action: KeepWaiting},
		{name: "nudged, acted, idle again without commits: needs you", obs: seen(func(o *Observation) { o.Commits = 0 }), crit: plain, memo: Memo{NudgedAt: t0.Add(-2 * time.Minute)}, action: AskUser},
		{name: "allow_empty: no commits is fine", obs: seen(func(o *Observation) { o.Commits = 0 }), crit: Criteria{Settle: settle, AllowEmpty: true}, action: MarkDone},
		{name: "owt done without commits: needs you, no nudge", obs: seen(func(o *Observation) { o.Commits = 0; o.Done = done }), crit: plain, action: AskUser},
		{name: "exit 0 without commits: needs you", obs: seen(func(o *Observation) { o.Commits = 0; o.Status = state.Exited; o.ExitCode = code(0) }), crit: plain, action: AskUser},
		{name: "owt done, HEAD off the task's branch: needs you", obs: seen(func(o *Observation) { o.Done = done; o.OffBranch = "HEAD in /w is on x" }), crit: plain, action: AskUser},
		{name: "settled, HEAD off the task's branch, allow_empty: needs you", obs: seen(func(o *Observation) { o.OffBranch = "HEAD in /w is detached" }), crit: Criteria{Settle: settle, AllowEmpty: true}, action: AskUser},
		{name: "owt done, commits that change nothing: needs you", obs: seen(func(o *Observation) { o.Done = done; o.Unchanged = true }), crit: plain, action: AskUser},
		{name: "settled, commits that change nothing: one nudge", obs: seen(func(o *Observation) { o.Unchanged = true }), crit: plain, action: SendMessage, kind: MsgNudge},
		{name: "allow_empty: commits that change nothing are fine", obs: seen(func(o *Observation) { o.Done = done; o.Unchanged = true }), crit: Criteria{Settle: settle, AllowEmpty: true}, action: MarkDone},
		{name: "uncommitted: one message asking to commit", obs: seen(func(o *Observation) { o.Uncommitted = []string{"a.go"}; o.Done = done }), crit: plain, action: SendMessage, kind: MsgCommit},
		{name: "uncommitted after the message, acted: needs you", obs: seen(func(o *Observation) { o.Uncommitted = []string{"a.go"} }), crit: plain, memo: Memo{CommitAskedAt: t0.Add(-2 * time.Minute)}, action: AskUser},
		{name: "uncommitted, message not taken up yet: wait", obs: seen(func(o *Observation) { o.Uncommitted = []string{"a.go"} }), crit: plain, memo: Memo{CommitAskedAt: t0.Add(-10 * time.Second)}, action: KeepWaiting},
		{name: "uncommitted and exited: needs you", obs: seen(func(o *Observation) { o.Uncommitted = []string{"a.go"}; o.Status = state.Exited; o.ExitCode = code(0) }), crit: plain, action: AskUser},
		{name: "checks not run on this tree: run them", obs: seen(nil), crit: checked, action: RunChecks},
		{name: "checks ran on another tree: run them again", obs: seen(func(o *Observation) { o.Tree = "t2" }), crit: checked, memo: passed, action: RunChecks},
		{name: "checks passed on this tree: done", obs: seen(nil), crit: checked, memo: passed, action: MarkDone},
		{name: "checks fail: the failure goes to the agent", obs: seen(nil), crit: checked, memo: failing, action: SendMessage, kind: MsgChecks},
		{name: "checks failure sent for this tree, taken up, same tree: needs you", obs: seen(nil), crit: checked, memo: sentChecks, action: AskUser},
		{name: "checks fail on a new tree: sent again (once per tree)", obs: seen(func(o *Observation) { o.Tree = "t2" }), crit: checked,
			memo: func() Memo { m := sentChecks; m.Checks = &CheckResult{Tree: "t2", Output: "FAIL"}; return m }(), action: SendMessage, kind: MsgChecks},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(tc.obs, tc.crit, tc.memo)
			require.Equal(t, tc.action, v.Action, "why: %s", v.Why)
			if tc.signal != "" {
				require.Equal(t, tc.signal, v.Evidence.Signal)
			}
			if tc.action == SendMessage {
				require.NotNil(t, v.Message)
				require.Equal(t, tc.kind, v.Message.Kind)
				require.NotEmpty(t, v.Message.Text)
			}
			if tc.action == MarkFailed {
				require.Equal(t, tc.class, v.Failure.Class)
			}
			if tc.action == AskUser || tc.action == KeepWaiting {
				require.NotEmpty(t, v.Why, "a user is told why")
			}
			require.Equal(t, tc.obs.Now, v.Evidence.At)
		})
	}
}

func TestJudgeEvidenceIsKept(t *testing.T) {
	v := Judge(seen(func(o *Observation) {
		o.Done = &state.DoneSignal{Summary: untrusted.From("models added"), At: t0}
		o.Commits = 2
	}), Criteria{Settle: settle, HasChecks: true}, Memo{Checks: &CheckResult{Tree: "t1", Passed: true}})
	require.Equal(t, MarkDone, v.Action)
	require.Equal(t, Evidence{Signal: "owt done", Summary: untrusted.From("models added"), Commits: 2, Checks: "passed", Tree: "t1", At: t0}, v.Evidence)
}

// The scenarios of the issue, judged step by step as the engine would,
// each message delivered (Memo.Delivered) before the agent acts on it.
func TestJudgeIdleWithoutCommitsNudgesOnceThenDone(t *testing.T) {
	var m Memo
	c := Criteria{Settle: settle}
	o := seen(func(o *Observation) { o.Commits = 0 })
	v := Judge(o, c, m)
	require.Equal(t, SendMessage, v.Action)
	m.Delivered(*v.Message, t0)

	o.Now = t0.Add(5 * time.Second)
	require.Equal(t, KeepWaiting, Judge(o, c, m).Action, "the nudge is not sent twice")

	// The agent commits and runs owt done.
	o.LastActivity, o.Now, o.Commits = t0.Add(20*time.Second), t0.Add(21*time.Second), 1
	o.Done = &state.DoneSignal{At: t0.Add(20 * time.Second)}
	require.Equal(t, MarkDone, Judge(o, c, m).Action)
}

func TestJudgeFailingCheckSentOncePerTreeThenPasses(t *testing.T) {
	var m Memo
	c := Criteria{Settle: settle, HasChecks: true}
	o := seen(func(o *Observation) { o.Done = &state.DoneSignal{At: t0} })
	require.Equal(t, RunChecks, Judge(o, c, m).Action)
	m.Checks = &CheckResult{Tree: "t1", Output: "FAIL: TestX"}

	v := Judge(o, c, m)
	require.Equal(t, SendMessage, v.Action)
	require.Contains(t, v.Message.Text, "FAIL: TestX")
	m.Delivered(*v.Message, o.Now)
	require.Equal(t, KeepWaiting, Judge(o, c, m).Action, "sent once for this tree")

	// The agent fixes it: a new commit, a new tree.
	o.Now, o.LastActivity, o.Tree = t0.Add(time.Minute), t0.Add(50*time.Second), "t2"
	o.Done = &state.DoneSignal{At: t0.Add(50 * time.Second)}
	v = Judge(o, c, m)
	require.Equal(t, RunChecks, v.Action)
	require.Equal(t, "t2", v.Tree)
	m.Checks = &CheckResult{Tree: "t2", Passed: true}
	require.Equal(t, MarkDone, Judge(o, c, m).Action)
}

// A review the plan requires that gave no verdict is not the agent's to
// fix: the user is asked, and the agent is told nothing.
func TestJudgeUnavailableReviewNeedsTheUser(t *testing.T) {
	o := seen(func(o *Observation) { o.Done = &state.DoneSignal{At: t0} })
	m := Memo{Checks: &CheckResult{Tree: o.Tree, Unavailable: "claude is not signed in", Output: "the AI review is unavailable"}}
	v := Judge(o, Criteria{Settle: settle, HasChecks: true}, m)
	require.Equal(t, AskUser, v.Action)
	require.Contains(t, v.Why, "the AI review is unavailable on")
	require.Contains(t, v.Why, "claude is not signed in")
	require.Nil(t, v.Message)
}

// A plan's review makes a task without check commands have checks.
func TestReviewCountsAsACheck(t *testing.T) {
	no := false
	p := &Plan{Review: true, Tasks: []Task{{ID: "a"}, {ID: "b", Review: &no}}}
	require.True(t, CriteriaOf(p, &p.Tasks[0]).HasChecks)
	require.False(t, CriteriaOf(p, &p.Tasks[1]).HasChecks)
}
