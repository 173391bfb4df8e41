package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLandedWorkIntoLostPausesTheRunAndNeedsTheUser(t *testing.T) {
	now := time.Unix(100, 0)
	r := childRun(t)
	r.Into = "feat/x"
	a, _ := r.Task("a")
	a.State, a.LandedTip = Landed, "tip-a"

	evs := r.loseLandings("feat/x no longer exists", []string{"a", "b"}, now)
	require.Equal(t, NeedsYou, a.State)
	require.Equal(t, FailLand, a.Failure.Class, "its landing is tried again once the run is resumed")
	require.Contains(t, a.Why, "feat/x no longer exists")
	b, _ := r.Task("b")
	require.Equal(t, Done, b.State, "b had not landed: nothing lost")
	require.Equal(t, Paused, r.State)
	require.Contains(t, r.Why, "the work of a is not in it")
	require.Equal(t, []string{"needs_you", "paused"}, []string{evs[0].Event, evs[1].Event})
	require.Empty(t, r.loseLandings("again", []string{"a"}, now), "said once")
}
