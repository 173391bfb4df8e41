package status

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func TestWhyLineSaysWhatSetTheStatus(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 10, 0, 0, time.Local)
	since := time.Date(2026, 11, 28, 12, 3, 0, 0, time.Local)
	code := 137
	hooks := []state.HookEvent{{Event: "UserPromptSubmit", Status: state.Working}, {Event: "PermissionRequest", Status: state.Waiting},
		{Event: "Notification", Detail: "permission_prompt", Status: state.Waiting}}
	for _, tc := range []struct {
		name string
		rec  state.Record
		want string
	}{
		{"the first hook of the run that set it", state.Record{Status: state.Waiting, WaitingFor: "permission", Source: state.FromHook, Hooks: hooks},
			"waiting for permission since 12:03 (hook PermissionRequest)"},
		{"confirmed by the screen", state.Record{Status: state.Waiting, Source: state.FromHook, Hooks: hooks,
			Screen: &state.ScreenEvidence{Status: state.Waiting, Rule: "claude/permission", Lines: []untrusted.Untrusted{untrusted.From("Do you want to proceed?")}}},
			"waiting since 12:03 (hook PermissionRequest, confirmed by screen: 'Do you want to proceed?' — rule claude/permission)"},
		{"a reading of another status is not evidence", state.Record{Status: state.Working, Source: state.FromHook, Hooks: hooks[:1],
			Screen: &state.ScreenEvidence{Status: state.Idle, Rule: "claude/prompt"}},
			"working since 12:03 (hook UserPromptSubmit)"},
		{"the screen corrected a hook", state.Record{Status: state.Idle, Source: state.FromScreen, Interrupted: true, Hooks: hooks[:1],
			Screen: &state.ScreenEvidence{Status: state.Idle, Rule: "claude/prompt", Set: true, Was: state.Working, WasSource: state.FromHook, Lines: []untrusted.Untrusted{untrusted.From("│ >")}}},
			"idle since 12:03 (the screen corrected what the hook said working: '│ >' — rule claude/prompt, turn interrupted)"},
		{"owt set it, the screen confirmed it", state.Record{Status: state.Working, Source: state.FromOwt,
			Screen: &state.ScreenEvidence{Status: state.Working, Rule: "opencode/working", Lines: []untrusted.Untrusted{untrusted.From("esc interrupt")}}},
			"working since 12:03 (owt, confirmed by screen: 'esc interrupt' — rule opencode/working)"},
		{"owt saw it end", state.Record{Status: state.Exited, Source: state.FromOwt, ExitCode: &code},
			"exited (code 137) since 12:03 (owt)"},
		{"a failed turn", state.Record{Status: state.Idle, Source: state.FromHook, TurnError: untrusted.From("rate_limit\x1b[2J")},
			"idle since 12:03 (hook, turn failed: rate_limit[2J)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rec.StatusSince = since
			require.Equal(t, tc.want, WhyLine(&tc.rec, now))
		})
	}
	r := state.Record{Status: state.Idle, Source: state.FromOwt, StatusSince: since.AddDate(0, 0, -1)}
	require.Equal(t, "idle since Nov 27 12:03 (owt)", WhyLine(&r, now))
}

// An agent's run task is the latest run's that ran it, with the judge's
// evidence as the run recorded it.
func TestTaskOfIsTheLatestRunsTask(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	old := &run.Run{Name: "old", CreatedAt: at, Tasks: []*run.TaskRun{{ID: "x", Name: "a", State: run.Failed}}}
	cur := &run.Run{Name: "cur", CreatedAt: at.Add(time.Hour), Tasks: []*run.TaskRun{{ID: "b", Name: "b"},
		{ID: "api", Name: "a", State: run.Running, Attempt: 2, Evidence: &run.Evidence{Signal: "owt done", Commits: 3, Checks: "passed"}}}}
	got := taskOf([]*run.Run{cur, old}, "a")
	require.NotNil(t, got)
	require.Equal(t, "cur", got.Run)
	require.Equal(t, "api", got.ID)
	require.Equal(t, 2, got.Attempt)
	require.Equal(t, 3, got.Evidence.Commits)
	require.Nil(t, taskOf([]*run.Run{cur, old}, "nobody"))
}
