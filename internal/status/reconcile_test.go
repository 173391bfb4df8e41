package status

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func TestReconcile(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	const still = 5 * time.Second
	rec := func(st state.Status, src state.Source, eventAgo time.Duration) *state.Record {
		return &state.Record{Name: "a", Status: st, Source: src, EventAt: ago(eventAgo)}
	}
	obs := func(c agent.Class, held, stillFor time.Duration) Observation {
		return Observation{Class: c, ClassSince: ago(held), Changed: ago(stillFor), At: now}
	}
	cases := []struct {
		name string
		rec  *state.Record
		obs  Observation
		want state.Status // "" = no change
	}{
		{"a question on screen beats a working hook", rec(state.Working, state.FromHook, 3*time.Second), obs(agent.ClassWaiting, 2*time.Second, 0), state.Waiting},
		{"not before the reading held for the debounce", rec(state.Working, state.FromHook, 3*time.Second), obs(agent.ClassWaiting, 500*time.Millisecond, 0), ""},
		{"not over a fresh hook", rec(state.Idle, state.FromHook, 300*time.Millisecond), obs(agent.ClassWorking, 3*time.Second, 0), ""},
		{"a spinner after a finished turn is working (codex has no turn-start hook)", rec(state.Idle, state.FromHook, time.Minute), obs(agent.ClassWorking, 2*time.Second, 0), state.Working},
		{"a spinner after an approval is working", rec(state.Waiting, state.FromHook, 10*time.Second), obs(agent.ClassWorking, 2*time.Second, 0), state.Working},
		{"Esc: prompt showing, pane still for still_after", rec(state.Working, state.FromHook, time.Minute), obs(agent.ClassIdle, 6*time.Second, 6*time.Second), state.Idle},
		{"Esc: not while the pane still moves", rec(state.Working, state.FromHook, time.Minute), obs(agent.ClassIdle, 6*time.Second, 2*time.Second), ""},
		{"a question answered no: still prompt is idle", rec(state.Waiting, state.FromHook, time.Minute), obs(agent.ClassIdle, 6*time.Second, 6*time.Second), state.Idle},
		{"the screen's own working ends at once", rec(state.Working, state.FromScreen, 5*time.Second), obs(agent.ClassIdle, 2*time.Second, 2*time.Second), state.Idle},
		{"owt's working waits for stillness", rec(state.Working, state.FromOwt, 5*time.Second), obs(agent.ClassIdle, 2*time.Second, 2*time.Second), ""},
		{"idle stays idle", rec(state.Idle, state.FromHook, time.Minute), obs(agent.ClassIdle, time.Minute, time.Minute), ""},
		{"working stays working", rec(state.Working, state.FromHook, time.Minute), obs(agent.ClassWorking, time.Minute, 0), ""},
		{"an unreadable screen changes nothing", rec(state.Working, state.FromHook, time.Minute), obs(agent.ClassUnknown, time.Minute, time.Minute), ""},
		{"exited is the runner's", rec(state.Exited, state.FromOwt, time.Minute), obs(agent.ClassWaiting, time.Minute, 0), ""},
		{"starting is the runner's", rec(state.Starting, state.FromOwt, time.Minute), obs(agent.ClassIdle, time.Minute, time.Minute), ""},
	}
	pending := func(r *state.Record) *state.Record { r.TaskPending = true; return r }
	marked := func(o Observation, interrupted bool, failure string) Observation {
		o.Interrupted, o.TurnError = interrupted, failure
		return o
	}
	cases = append(cases, []struct {
		name string
		rec  *state.Record
		obs  Observation
		want state.Status
	}{
		{"Esc with its mark on screen: idle without waiting for stillness", rec(state.Working, state.FromHook, time.Minute), marked(obs(agent.ClassIdle, 2*time.Second, 0), true, ""), state.Idle},
		{"a failure mark on screen: idle at once", rec(state.Waiting, state.FromHook, time.Minute), marked(obs(agent.ClassIdle, 2*time.Second, 0), false, "x"), state.Idle},
		{"a dialog answered, the task not taken yet: starting again", pending(rec(state.Waiting, state.FromScreen, time.Minute)), obs(agent.ClassIdle, 2*time.Second, 2*time.Second), state.Starting},
		{"the task not taken yet: no turn finished", pending(rec(state.Starting, state.FromOwt, time.Minute)), obs(agent.ClassIdle, time.Minute, time.Minute), ""},
		{"a turn that failed before it was taken is idle", pending(rec(state.Waiting, state.FromScreen, time.Minute)), marked(obs(agent.ClassIdle, 2*time.Second, 0), false, "x"), state.Idle},
	}...)
	for _, c := range cases {
		got, ok := Reconcile(c.rec, c.obs, still)
		require.Equal(t, c.want, got, c.name)
		require.Equal(t, c.want != "", ok, c.name)
	}
}

func TestStatusEventsOutOfOrderAreStale(t *testing.T) {
	w := newWorld(t).Workspace()
	require.NoError(t, w.Store.Update(func(f *state.File) error {
		f.Records["a"] = &state.Record{Name: "a", Status: state.Starting}
		return nil
	}))
	t0 := time.Now()
	_, changed, err := SetAt(&w.Ledger, "a", state.Idle, state.FromHook, nil, t0.Add(2*time.Second))
	require.NoError(t, err)
	require.True(t, changed)
	// A hook that started earlier reaches the lock later: it is dropped.
	rec, changed, err := SetAt(&w.Ledger, "a", state.Working, state.FromHook, nil, t0.Add(time.Second))
	require.NoError(t, err)
	require.False(t, changed)
	require.Equal(t, state.Idle, rec.Status)
	require.Equal(t, t0.Add(2*time.Second).UnixNano(), rec.StatusSince.UnixNano())

	// A screen reading taken before the last event does not apply either.
	applied, err := ApplyScreen(&w.Ledger, "a", Observation{Class: agent.ClassWorking, ClassSince: t0.Add(-time.Minute), Changed: t0, At: t0.Add(time.Second)}, time.Second)
	require.NoError(t, err)
	require.False(t, applied)

	// An exit code is kept when a later "exited" has none.
	code := 3
	_, _, err = SetAt(&w.Ledger, "a", state.Exited, state.FromOwt, &code, t0.Add(3*time.Second))
	require.NoError(t, err)
	rec, _, err = SetAt(&w.Ledger, "a", state.Exited, state.FromHook, nil, t0.Add(4*time.Second))
	require.NoError(t, err)
	require.NotNil(t, rec.ExitCode)
	require.Equal(t, 3, *rec.ExitCode)
	_, _, err = SetAt(&w.Ledger, "nosuch", state.Idle, state.FromHook, nil, t0)
	require.ErrorIs(t, err, state.ErrUnknownName)
}

// An agent started with its task that turns idle before any turn started
// never took it (issue 16, item 19); a hook's end of turn, or a turn seen
// working, is the task taken.
func TestIdleBeforeTheTaskWasTakenIsAFailedTurn(t *testing.T) {
	w := newWorld(t).Workspace()
	require.NoError(t, w.Store.Update(func(f *state.File) error {
		for _, n := range []string{"a", "b", "c"} {
			f.Records[n] = &state.Record{Name: n, Status: state.Starting, TaskPending: true}
		}
		return nil
	}))
	t0 := time.Now()
	r, _, err := SetAt(&w.Ledger, "a", state.Idle, state.FromOwt, nil, t0)
	require.NoError(t, err)
	require.Equal(t, untrusted.From(state.TaskNotTaken), r.TurnError)
	require.False(t, r.TaskPending)

	r, _, err = SetAt(&w.Ledger, "b", state.Idle, state.FromHook, nil, t0)
	require.NoError(t, err)
	require.Empty(t, r.TurnError, "a hook's idle ends a turn")
	require.False(t, r.TaskPending)

	_, _, err = SetAt(&w.Ledger, "c", state.Working, state.FromOwt, nil, t0)
	require.NoError(t, err)
	r, _, err = SetAt(&w.Ledger, "c", state.Idle, state.FromScreen, nil, t0.Add(time.Second))
	require.NoError(t, err)
	require.Empty(t, r.TurnError, "a turn ran")
}

// The screen confirms a wait, and a working status owt set with no hook
// behind it (OpenCode, Codex with -c notify): else owt why has no
// evidence for it. A hook's working is evidence enough.
func TestConfirmsAWaitAndOwtsWorking(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	obs := Observation{Class: agent.ClassWorking, Rule: "opencode/working", ClassSince: at, At: at.Add(2 * Debounce)}
	rec := &state.Record{Status: state.Working, Source: state.FromOwt, StatusSince: at, EventAt: at}
	require.True(t, Confirms(rec, obs))
	rec.Source = state.FromHook
	require.False(t, Confirms(rec, obs), "a hook said it")
	rec.Source = state.FromOwt
	rec.Screen = &state.ScreenEvidence{Status: state.Working, Rule: "opencode/working", At: at.Add(Debounce)}
	require.False(t, Confirms(rec, obs), "noted already this turn")
	idle := &state.Record{Status: state.Idle, Source: state.FromOwt, StatusSince: at, EventAt: at}
	require.False(t, Confirms(idle, Observation{Class: agent.ClassIdle, Rule: "opencode/prompt", ClassSince: at, At: at.Add(2 * Debounce)}))
	waiting := &state.Record{Status: state.Waiting, Source: state.FromHook, StatusSince: at, EventAt: at}
	require.True(t, Confirms(waiting, Observation{Class: agent.ClassWaiting, Rule: "claude/permission", ClassSince: at, At: at.Add(2 * Debounce)}))
}

// OpenCode stopped with Esc keeps its unfinished answer on screen; owt
// send then sets working, and OpenCode draws its busy indicator seconds
// later. The idle reading, held since before the send, shows the last
// turn's mark: that is no end of this turn (it read idle 2–3 s after
// owt send). The real screens of OpenCode 1.18.33.
func TestAnOldTurnsMarkDoesNotEndANewTurn(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("../../testdata/screens/opencode", name))
		require.NoError(t, err)
		return string(b)
	}
	interrupted, failure := agent.TurnEnd(agent.Marks(read("working-retrying-v1.18.33.txt")), agent.Marks(read("idle-interrupted-v1.18.33.txt")))
	require.True(t, interrupted, "the screen says the turn was stopped")
	require.Empty(t, failure)

	escAt := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) // the prompt came back: idle on screen since
	sentAt := escAt.Add(20 * time.Second)                   // owt send: working from owt
	obs := Observation{Class: agent.ClassIdle, Rule: "opencode/prompt", ClassSince: escAt, Changed: sentAt,
		At: sentAt.Add(2 * time.Second), Interrupted: interrupted}
	sent := &state.Record{Name: "o", Status: state.Working, Source: state.FromOwt, StatusSince: sentAt, EventAt: sentAt}
	got, ok := Reconcile(sent, obs, 5*time.Second)
	require.False(t, ok, "the last turn's mark: still working, not %s", got)
	obs.At = sentAt.Add(6 * time.Second)
	got, _ = Reconcile(sent, obs, 5*time.Second)
	require.Equal(t, state.Idle, got, "a prompt still for still_after is idle all the same")

	// The turn ran on screen and stopped: idle at once.
	ran := &state.Record{Name: "o", Status: state.Working, Source: state.FromOwt, StatusSince: escAt.Add(-time.Minute), EventAt: escAt.Add(-time.Minute)}
	obs.At, obs.Changed = escAt.Add(2*time.Second), escAt.Add(2*time.Second)
	got, _ = Reconcile(ran, obs, 5*time.Second)
	require.Equal(t, state.Idle, got)
}

// Claude Code 2.1.330 draws a blank pane for 6–7 s after its API key
// question is answered: the question is gone, the task not taken yet:
// starting, not still "waiting (API key)".
func TestABlankPaneAfterAFirstRunQuestionIsStarting(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	asked := &state.Record{Name: "k", Status: state.Waiting, WaitingFor: "API key", Source: state.FromScreen,
		TaskPending: true, StatusSince: at, EventAt: at}
	blank := Observation{Class: agent.ClassUnknown, Blank: true, ClassSince: at.Add(5 * time.Second), At: at.Add(6500 * time.Millisecond)}
	got, ok := Reconcile(asked, blank, 5*time.Second)
	require.True(t, ok)
	require.Equal(t, state.Starting, got)

	notYet := blank
	notYet.At = blank.ClassSince.Add(Debounce / 2)
	_, ok = Reconcile(asked, notYet, 5*time.Second)
	require.False(t, ok, "one blank frame is a redraw")
	unreadable := blank
	unreadable.Blank = false
	_, ok = Reconcile(asked, unreadable, 5*time.Second)
	require.False(t, ok, "a screen owt cannot read changes nothing")
	hooked := *asked
	hooked.Source = state.FromHook
	_, ok = Reconcile(&hooked, blank, 5*time.Second)
	require.False(t, ok, "a wait a hook told is not the screen's to end")
	taken := *asked
	taken.TaskPending = false
	_, ok = Reconcile(&taken, blank, 5*time.Second)
	require.False(t, ok, "no task pending: nothing says what comes")
}
