package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
)

func TestSamePathReadsTheHostsHome(t *testing.T) {
	require.True(t, samePath("~/src/app", "/home/me/src/app"))
	require.True(t, samePath("/srv/app/", "/srv/app"))
	require.False(t, samePath("~/src/app", "/home/me/src/app2"))
	require.False(t, samePath("~/src/app", "/home/me/src/other/app/x"))
	require.False(t, samePath("/srv/app", "/srv/app2"))
}

func TestRemoteAgentsOnTheBoard(t *testing.T) {
	now := time.Now()
	items := []lifecycle.Item{
		{Name: "far", Host: "box", Repo: "/r", Status: "idle", Ahead: 3},
		{Name: "asks", Host: "box", Repo: "/r", Status: "waiting"},
		{Name: "gone", Host: "box", Repo: "/r", Status: "exited"},
		{Name: "away", Host: "box", Repo: "/r", Status: "working", Unreachable: true},
	}
	b := Build(Input{Items: items}, now)
	where := map[string]Row{}
	for _, r := range b.Rows {
		where[r.Name] = r
	}
	require.Equal(t, InFlight, where["far"].Section, "no git figures here: never READY TO SHIP")
	require.Equal(t, "on host box", where["far"].Why)
	require.True(t, where["far"].IsRemote())
	require.Equal(t, NeedsYou, where["asks"].Section)
	require.Equal(t, Ended, where["gone"].Section)
	require.Equal(t, "on host box, unreachable (last working)", where["away"].Why)

	// A run task on a host is carried by its agent's row.
	r := &run.Run{Name: "g", Repo: "/r", State: run.Active, Tasks: []*run.TaskRun{{ID: "a", Name: "far", Host: "box", State: run.NeedsYou, Why: "its agent runs on host box"}}}
	b = Build(Input{Items: items[:1], Runs: []*run.Run{r}}, now)
	var rows []Row
	for _, row := range b.Rows {
		if !row.Section.IsLog() {
			rows = append(rows, row)
		}
	}
	require.Len(t, rows, 1)
	require.Equal(t, NeedsYou, rows[0].Section)
	require.Equal(t, "its agent runs on host box", rows[0].Why)
	require.Equal(t, "box", rows[0].Host)
	require.Equal(t, "a", rows[0].TaskID)
}
