package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
)

// An agent resolving a conflict owt handed it is READY TO SHIP only once
// owt verified its work: in flight while it works or before owt looked,
// NEEDS YOU with owt's reason when its work is not right or it was not
// told, whatever its commits say.
func TestResolvingAgentIsReadyOnlyWhenVerified(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		status string
		res    state.Resolving
		want   Section
		why    string
	}{
		{"working", state.Resolving{Target: "main", Told: true}, InFlight, "resolving its conflicts with main"},
		{"idle", state.Resolving{Target: "main", Told: true}, InFlight, "owt checks its work"},
		{"idle", state.Resolving{Target: "main", Told: true, Verdict: state.ResolveReady}, ReadyToShip, "verified"},
		{"exited", state.Resolving{Target: "main", Told: true, Verdict: "conflict markers left in a.go"}, NeedsYou, "resolve not ready: conflict markers left in a.go"},
		{"idle", state.Resolving{Target: "main", Untold: "it waits for you"}, NeedsYou, "was not told"},
	}
	for _, c := range cases {
		res := c.res
		rec := &state.Record{Name: "n", Repo: "/r", Resolve: &res}
		b := Build(Input{Items: []lifecycle.Item{{Name: "n", Repo: "/r", Status: c.status, Ahead: 2}}, Records: []*state.Record{rec}}, now)
		require.Len(t, b.Rows, 1)
		require.Equal(t, c.want, b.Rows[0].Section, "%+v", c)
		require.Contains(t, b.Rows[0].Why, c.why)
	}
}
