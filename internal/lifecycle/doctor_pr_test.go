package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// One finding per reason, naming a bounded list of worktrees; closed or
// fresh pull requests are not stale.
func TestStalePRsGroupsByReasonAndBoundsTheNames(t *testing.T) {
	var recs []*state.Record
	for _, n := range []string{"g", "f", "e", "d", "c", "b", "a"} {
		recs = append(recs, &state.Record{Name: n, PR: &state.PR{Number: 1, State: "OPEN", Stale: "gh is not logged in"}})
	}
	recs = append(recs,
		&state.Record{Name: "x", PR: &state.PR{Number: 2, State: "OPEN", Stale: "gh pr view: HTTP 502"}},
		&state.Record{Name: "merged", PR: &state.PR{Number: 3, State: "MERGED", Stale: "gh is not logged in"}},
		&state.Record{Name: "fresh", PR: &state.PR{Number: 4, State: "OPEN"}},
		&state.Record{Name: "none"})
	got := StalePRs(recs)
	require.Len(t, got, 2)
	require.Equal(t, "the pull request state of a, b, c, d, e and 2 more is stale: gh is not logged in", got[0].Detail)
	require.Equal(t, "the pull request state of x is stale: gh pr view: HTTP 502", got[1].Detail)
	require.Equal(t, PRStateStale, got[0].Kind)
	require.False(t, got[0].Fixed)
}
