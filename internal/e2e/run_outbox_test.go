package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Messages owt owes an agent in a run (a nudge, failing checks) go through
// the outbox: delivered only when the agent is idle and no client is on
// its pane, through owt send's path, and logged as queued, then delivered
// or undeliverable (then the task needs the user).

// nudgeMark is a piece of the nudge text (run.NudgeText).
const nudgeMark = "If your task is finished, commit your work and run `owt done"

// onNext holds script lines for the fake agent's next prompt: the message
// owt sends it makes it act on them.
func onNext(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\\n!on-next " + l)
	}
	return b.String()
}

// finishOnNext: on its next prompt the agent writes file, commits it and
// runs owt done.
func finishOnNext(file string) string {
	return onNext("!write "+file, "!commit add "+file, "!exec "+owtBin+" done --summary did-"+file)
}

// oneTaskPlan is a run of one task, settle 1s, with extra [run] lines.
func oneTaskPlan(id, task, extra string) string {
	return "[run]\ntool = \"claude\"\nsettle = \"1s\"\n" + extra + "\n[[task]]\nid = \"" + id + "\"\ntask = \"" + task + "\"\n"
}

func (e *Env) eventsOf(dir, run string, kind string) []runEvent {
	var out []runEvent
	for _, ev := range e.runEvents(dir, run) {
		if ev.Event == kind {
			out = append(out, ev)
		}
	}
	return out
}

func (e *Env) waitRunEvent(dir, run, kind string) runEvent {
	e.t.Helper()
	var got runEvent
	e.Eventually(60*time.Second, "event "+kind+" in run "+run, func() bool {
		evs := e.eventsOf(dir, run, kind)
		if len(evs) > 0 {
			got = evs[0]
		}
		return len(evs) > 0
	})
	return got
}

func (e *Env) waitTaskState(dir, run, state string) {
	e.t.Helper()
	e.Eventually(60*time.Second, "task of "+run+" "+state, func() bool {
		return e.runStatus(dir, run).Tasks[0].State == state
	})
}

// promptsWith are the prompts agent name got that contain text.
func (e *Env) promptsWith(name, text string) []string {
	var out []string
	for _, p := range e.Prompts(name) {
		if strings.Contains(p, text) {
			out = append(out, p)
		}
	}
	return out
}

func (e *Env) agentEvents(name, kind string) int {
	n := 0
	for _, ev := range e.Events() {
		if ev.Event == kind && ev.Agent == name {
			n++
		}
	}
	return n
}

func eventNames(evs []runEvent) []string {
	var out []string
	for _, ev := range evs {
		if ev.Task != "" {
			out = append(out, ev.Event)
		}
	}
	return out
}

func TestRunNudgesAnIdleAgentOnceThenItsCommitAndDoneFinishIt(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "n.toml", oneTaskPlan("think", "think about it, change nothing"+finishOnNext("n.txt"), ""))
	e.MustOwt(repo, "run", "start", "n.toml")
	e.MustOwt(repo, "tmux", "init")

	e.waitTaskState(repo, "n", "done")
	require.Len(t, e.promptsWith("n-think", nudgeMark), 1, "one nudge, delivered once")
	names := eventNames(e.runEvents(repo, "n"))
	require.Subset(t, names, []string{"queued", "delivered", "done"})
	require.Less(t, indexOf(names, "queued"), indexOf(names, "delivered"))
	require.Less(t, indexOf(names, "delivered"), indexOf(names, "done"))
	require.Len(t, e.eventsOf(repo, "n", "delivered"), 1)
	require.Contains(t, e.Git(repo, "log", "--format=%s", *e.runStatus(repo, "n").Tasks[0].Branch), "add n.txt")
}

func TestRunSendsFailingChecksOncePerTreeAndPassesAfterTheFix(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	task := "!write a.txt\\n!commit add a\\n!exec " + owtBin + " done --summary first" +
		onNext("!write fixed.txt", "!commit fix the check", "!exec "+owtBin+" done --summary fixed")
	e.WriteFile(repo, "c.toml", oneTaskPlan("fix", task, `checks = [["sh", "-c", "test -f fixed.txt"]]`))
	e.MustOwt(repo, "run", "start", "c.toml")
	e.MustOwt(repo, "tmux", "init")

	e.waitTaskState(repo, "c", "done")
	sent := e.promptsWith("c-fix", "checks fail")
	require.Len(t, sent, 1, "the failing checks go once for that tree")
	require.Contains(t, sent[0], "$ sh -c 'test -f fixed.txt'")
	require.Contains(t, sent[0], "exit code 1")

	checks := e.eventsOf(repo, "c", "checks")
	require.Len(t, checks, 2, "one run per tree")
	require.Contains(t, checks[0].Detail, "failed")
	require.Contains(t, checks[1].Detail, "passed")
	require.Len(t, e.eventsOf(repo, "c", "delivered"), 1)
	var ev struct{ Checks string }
	require.NoError(t, json.Unmarshal(e.runStatus(repo, "c").Tasks[0].Evidence, &ev))
	require.Equal(t, "passed", ev.Checks)
}

func TestRunHoldsMessagesWhileAClientIsOnTheAgentsPane(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// The agent first asks for permission: the test answers it once a
	// client is on its pane, so its turn ends (and the nudge is owed) with
	// the user there.
	e.WriteFile(repo, "hold.toml", oneTaskPlan("think", "!ask echo hi"+finishOnNext("hold.txt"), ""))
	e.MustOwt(repo, "run", "start", "hold.toml")
	e.MustOwt(repo, "tmux", "init")
	e.waitTaskState(repo, "hold", "needs_you")

	it := e.Find(repo, "hold-think")
	pane := e.Tmux("display-message", "-p", "-t", it.Session, "#{pane_id}")
	client, _ := e.attach(it.Session)
	e.Tmux("send-keys", "-t", pane, "1") // yes: the turn goes on and ends

	held := e.waitRunEvent(repo, "hold", "held")
	require.Contains(t, held.Detail, "the user is on its pane")
	require.Empty(t, e.eventsOf(repo, "hold", "delivered"), "nothing is sent while the user is on the pane")
	require.Empty(t, e.promptsWith("hold-think", nudgeMark))

	left := time.Now()
	e.Tmux("detach-client", "-t", client)
	e.waitTaskState(repo, "hold", "done")
	require.Len(t, e.promptsWith("hold-think", nudgeMark), 1)
	delivered := e.eventsOf(repo, "hold", "delivered")
	require.Len(t, delivered, 1)
	require.True(t, delivered[0].At.After(left), "delivered only once the user left the pane: %v, left at %v", delivered[0].At, left)
}

func TestRunPressesASwallowedEnterAgain(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "s.toml", oneTaskPlan("think", "!swallow-enter 2"+finishOnNext("s.txt"), ""))
	e.MustOwt(repo, "run", "start", "s.toml")
	e.MustOwt(repo, "tmux", "init")

	e.waitTaskState(repo, "s", "done")
	require.Equal(t, 2, e.agentEvents("s-think", "swallowed"), "two Enters lost, the third took")
	require.Len(t, e.promptsWith("s-think", nudgeMark), 1)
	require.Len(t, e.eventsOf(repo, "s", "delivered"), 1)
}

func TestRunMessageWhoseEnterNeverTakesNeedsYou(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "u.toml", oneTaskPlan("think", "!swallow-enter 9"+finishOnNext("u.txt"), ""))
	e.MustOwt(repo, "run", "start", "u.toml")
	e.MustOwt(repo, "tmux", "init")

	ev := e.waitRunEvent(repo, "u", "undeliverable")
	require.Contains(t, ev.Detail, "Enter did not take")
	e.waitTaskState(repo, "u", "needs_you")
	require.Equal(t, 3, e.agentEvents("u-think", "swallowed"), "Enter pressed three times: once and again twice")
	require.Empty(t, e.promptsWith("u-think", nudgeMark), "the agent never got it")
	for _, ev := range e.runEvents(repo, "u") {
		require.NotEqual(t, "delivered", ev.Event)
		require.NotContains(t, ev.Detail, "delivered")
	}
	require.Contains(t, e.MustOwt(repo, "run", "status", "u", "--json"), "could not deliver a nudge")
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestRunLandsNothingWhileAClientIsOnTheAgentsPane(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	task := "!ask echo hi\\n!write l.txt\\n!commit add l.txt\\n!exec " + owtBin + " done --summary did-l"
	e.WriteFile(repo, "land.toml", oneTaskPlan("work", task, `into = "feat/x"`))
	e.MustOwt(repo, "run", "start", "land.toml")
	e.MustOwt(repo, "tmux", "init")
	e.waitTaskState(repo, "land", "needs_you")

	it := e.Find(repo, "land-work")
	pane := e.Tmux("display-message", "-p", "-t", it.Session, "#{pane_id}")
	client, _ := e.attach(it.Session)
	e.Tmux("send-keys", "-t", pane, "1") // yes: the agent commits and says done

	held := e.waitRunEvent(repo, "land", "held")
	require.Contains(t, held.Detail, "landing held: the user is on its pane")
	require.Equal(t, "done", e.runStatus(repo, "land").Tasks[0].State, "done, not landed")
	require.Empty(t, e.eventsOf(repo, "land", "landed"))

	left := time.Now()
	e.Tmux("detach-client", "-t", client)
	e.waitTaskState(repo, "land", "landed")
	require.Contains(t, e.Git(repo, "log", "--format=%s", "feat/x"), "add l.txt")
	landed := e.eventsOf(repo, "land", "landed")
	require.Len(t, landed, 1)
	require.True(t, landed[0].At.After(left), "landed only once the user left the pane: %v, left at %v", landed[0].At, left)
}

// A message held while the user is on the pane is withdrawn when the user
// takes the task away (owt run skip): it is never typed afterwards.
func TestRunWithdrawsAHeldMessageWhenTheTaskIsSkipped(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "hold.toml", oneTaskPlan("think", "!ask echo hi"+finishOnNext("hold.txt"), ""))
	e.MustOwt(repo, "run", "start", "hold.toml")
	e.MustOwt(repo, "tmux", "init")
	e.waitTaskState(repo, "hold", "needs_you")

	it := e.Find(repo, "hold-think")
	pane := e.Tmux("display-message", "-p", "-t", it.Session, "#{pane_id}")
	client, _ := e.attach(it.Session)
	e.Tmux("send-keys", "-t", pane, "1")
	e.waitRunEvent(repo, "hold", "held")

	e.MustOwt(repo, "run", "skip", "hold", "think")
	outboxDir := filepath.Join(e.Root, "state", "owt", "outbox")
	e.Eventually(20*time.Second, "the held nudge is withdrawn", func() bool {
		files, _ := filepath.Glob(filepath.Join(outboxDir, "hold-think-*.json"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			if strings.Contains(string(data), "its task is skipped") && strings.Contains(string(data), `"withdrawn"`) {
				return true
			}
		}
		return false
	})
	e.Tmux("detach-client", "-t", client)
	require.Empty(t, e.promptsWith("hold-think", nudgeMark), "the nudge was never typed")
	require.Empty(t, e.eventsOf(repo, "hold", "delivered"))
}
