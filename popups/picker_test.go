package popups

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// A task is someone else's words (a peer agent's owt new, a plan): the
// picker's preview draws its first line without the controls that would
// drive the terminal.
func TestPickerPreviewDrawsTheTaskInert(t *testing.T) {
	it := lifecycle.Item{Name: "a", Repo: "/r", Status: "idle", Missing: true,
		Task: untrusted.From("fix \x1b]0;PWNED\x07it\x1b[2J\nthen more")}
	p := newPreviewer(nil, agents{items: []lifecycle.Item{it}})
	got := p.render(0, 80, 20)
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("the preview draws the task's controls: %q", got)
	}
	if !strings.Contains(got, "task   fix ]0;PWNEDit[2J …\n") {
		t.Fatalf("the preview lost the task's first line: %q", got)
	}
}

func TestInPlaceAgentsSayInPlace(t *testing.T) {
	items := []lifecycle.Item{{Name: "quick", Repo: "/r", Status: "idle", Branch: "fix/quick", Base: "main", InPlace: true},
		{Name: "wt", Repo: "/r", Status: "idle", Branch: "feat/wt", Base: "main"}}
	rows := labels(items, time.Now())
	if !strings.Contains(rows[0], "fix/quick (in place)") || strings.Contains(rows[1], "in place") {
		t.Fatalf("the picker's rows: %q", rows)
	}
}

// The preview says why the agent under the cursor has its status: owt
// why's first line, the screen's words in it drawn inert.
func TestPickerPreviewShowsWhyItsStatus(t *testing.T) {
	now := time.Now()
	rec := &state.Record{Name: "a", Repo: "/r", Status: state.Waiting, WaitingFor: "permission", StatusSince: now, Source: state.FromHook,
		Hooks: []state.HookEvent{{Event: "UserPromptSubmit", Status: state.Working, At: now}, {Event: "PermissionRequest", Status: state.Waiting, At: now}},
		Screen: &state.ScreenEvidence{Status: state.Waiting, Rule: "claude/permission", At: now,
			Lines: []untrusted.Untrusted{untrusted.From("Do you want to \x1b[2Jproceed?")}}}
	it := lifecycle.Item{Name: "a", Repo: "/r", Status: "waiting", Missing: true}
	p := newPreviewer(nil, agents{items: []lifecycle.Item{it}, recs: map[state.Key]*state.Record{{Repo: "/r", Name: "a"}: rec}})
	got := p.render(0, 200, 20)
	want := "why    waiting for permission since " + now.Format("15:04") +
		" (hook PermissionRequest, confirmed by screen: 'Do you want to [2Jproceed?' — rule claude/permission)\n"
	if !strings.Contains(got, want) {
		t.Fatalf("the preview does not say why: %q", got)
	}
	if strings.Contains(got, "\x1b") {
		t.Fatalf("the preview draws the screen's controls: %q", got)
	}
}

// Alt+m's picker starts on the agent with work to land, not on the first
// row (the demo's login, asking for permission, came first and the user
// had to find checkout, ready to merge).
func TestMergePickerStartsOnTheAgentReadyToLand(t *testing.T) {
	items := []lifecycle.Item{
		{Name: "login", Status: "waiting", Ahead: 0},
		{Name: "cart", Status: "working", Dirty: 3},
		{Name: "fresh", Status: "idle"},
		{Name: "checkout", Status: "idle", Ahead: 1},
		{Name: "gone", Status: "exited", Dirty: 1},
	}
	var ready []string
	for _, it := range items {
		if startOn("merge")(it) {
			ready = append(ready, it.Name)
		}
	}
	require.Equal(t, []string{"checkout", "gone"}, ready)
	require.Nil(t, startOn("delete"), "the other pickers start on the first row")
}
