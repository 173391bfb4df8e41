package status

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func rec(name string, st state.Status, since time.Time) *state.Record {
	return &state.Record{Name: name, Repo: "/r", Status: st, StatusSince: since}
}

func TestSummaryRendersWhoNeedsYouThenCounts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := []*state.Record{
		rec("api", state.Working, t0), rec("ui", state.Starting, t0),
		rec("login", state.Waiting, t0.Add(2*time.Minute)), rec("docs", state.Waiting, t0.Add(time.Minute)),
		rec("cart", state.Idle, t0), rec("old", state.Exited, t0),
	}
	s := Summarize(recs)
	require.Equal(t, 6, s.Total)
	require.Equal(t, []string{"docs", "login"}, s.Waiting, "longest waiting first")
	require.Equal(t, "▲ docs login ● 2 ○ 1 ✕ 1", s.Render(StylePlain))
	require.Equal(t, "#[fg=black,bg=yellow,bold] ▲ docs login #[default] #[fg=black,bg=green] ● 2 #[default] #[fg=black,bg=cyan] ○ 1 #[default] #[fg=white,bg=red] ✕ 1 #[default]", s.Render(StyleTmux))
	require.Equal(t, "\x1b[1;33m▲ docs login\x1b[0m \x1b[32m● 2\x1b[0m \x1b[36m○ 1\x1b[0m \x1b[31m✕ 1\x1b[0m", s.Render(StyleANSI))
}

func TestSummaryOfNothingIsEmpty(t *testing.T) {
	require.Equal(t, "", Summarize(nil).Render(StyleTmux))
}

func TestSummaryNamesAtMostThreeWaiting(t *testing.T) {
	t0 := time.Now()
	var recs []*state.Record
	for i, n := range []string{"a", "b", "c", "d", "e"} {
		recs = append(recs, rec(n, state.Waiting, t0.Add(time.Duration(i)*time.Second)))
	}
	require.Equal(t, "▲ a b c +2", Summarize(recs).Render(StylePlain))
}

func TestSummaryEscapesHashForTmux(t *testing.T) {
	s := Summarize([]*state.Record{rec("x#y", state.Waiting, time.Now())})
	require.Equal(t, "#[fg=black,bg=yellow,bold] ▲ x##y #[default]", s.Render(StyleTmux))
}

// Agents on hosts count like local ones, named NAME@HOST when they need
// the user, oldest first; a host whose stream is down is said so, its
// agents counted with their last known status.
func TestSummaryCountsTheHostsAgents(t *testing.T) {
	now := time.Now()
	s := SummarizeWithHosts([]*state.Record{rec("api", state.Waiting, now.Add(-time.Minute)), rec("web", state.Idle, now)}, []state.HostStatus{
		{Host: "box", Reachable: true, Agents: []state.RemoteAgent{
			{Name: "gpu", Tool: "claude", Status: state.Waiting, Since: now.Add(-2 * time.Minute)},
			{Name: "run", Tool: "codex", Status: state.Working, Since: now},
			{Name: "sh", Status: state.Idle, Since: now},
		}},
		{Host: "far", Reachable: false, At: now.Add(-3 * time.Minute), Agents: []state.RemoteAgent{{Name: "x", Tool: "claude", Status: state.Idle, Since: now}}},
		{Host: "new", Reachable: false},
	})
	require.Equal(t, 5, s.Total)
	require.Equal(t, []string{"gpu@box", "api"}, s.Waiting)
	require.Equal(t, 2, s.Counts["idle"])
	require.Equal(t, "▲ gpu@box api ● 1 ○ 2 ⚠ unreachable: far, seen 3m ago; new", s.Render(StylePlain))
}
