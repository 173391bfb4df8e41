package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func engineRun(t *testing.T, into string) *Run {
	t.Helper()
	p, err := Parse("p.toml", []byte(`
[run]
`+into+`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
`))
	require.NoError(t, err)
	r := NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	r.Socket = "/tmp/tmux/default"
	return r
}

func TestLandingOrderAndFinish(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, `into = "feat/x"`)
	a, _ := r.Task("a")
	b, _ := r.Task("b")
	b.State = Done
	require.Nil(t, r.NextToLand(time.Now()), "b waits for a to land")
	a.State = Done
	require.Equal(t, "a", r.NextToLand(time.Now()).ID)
	a.State = Landed
	require.Equal(t, "b", r.NextToLand(time.Now()).ID)
	require.Empty(t, r.Finish(now), "done is not the end in a run with into")
	b.State = Landed
	require.Len(t, r.Finish(now), 1)
	require.Equal(t, Finished, r.State)

	pt, _ := r.Plan.TaskByID("b")
	require.Equal(t, "feat/x", r.StartBase(pt), "children start from into")
	pa, _ := r.Plan.TaskByID("a")
	require.Equal(t, "main", r.StartBase(pa))
}
