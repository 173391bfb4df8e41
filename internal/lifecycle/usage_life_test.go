package lifecycle

import (
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/usage"
)

// The usage kept under a name is shown on the agent of that name only
// when it is that agent's: right after a name is given again, until the
// monitor moves the deleted agent's spend to NAME@CREATED, the new agent
// is not charged it — whether that spend was kept with a life or, by an
// older owt, without one.
func TestListDoesNotChargeANewAgentTheSpendOfTheDeletedOneOfItsName(t *testing.T) {
	t.Cleanup(xdg.Reload) // after the variable is restored: no later test writes here
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	repo := "/repo"
	t1 := time.Date(2026, 11, 29, 3, 42, 24, 0, time.UTC)
	t2 := t1.Add(time.Minute)
	require.NoError(t, usage.ForRepo(repo).Update(func(f *usage.File) (bool, error) {
		f.Agents["old"] = &usage.Agent{Since: t1, Tokens: usage.Tokens{Input: 100}, Days: usage.Days{}}                 // kept before lives
		f.Agents["lived"] = &usage.Agent{Since: t1, Life: "aaaa", Tokens: usage.Tokens{Input: 200}, Days: usage.Days{}} // another life's
		f.Agents["mine"] = &usage.Agent{Since: t1, Life: "cccc", Tokens: usage.Tokens{Input: 300}, Days: usage.Days{}}
		f.Agents["before"] = &usage.Agent{Since: t1, Tokens: usage.Tokens{Input: 400}, Days: usage.Days{}} // an agent from before lives
		return true, nil
	}))
	items := []Item{
		{Name: "old", Repo: repo, Life: "bbbb", CreatedAt: t2},
		{Name: "lived", Repo: repo, Life: "bbbb", CreatedAt: t2},
		{Name: "mine", Repo: repo, Life: "cccc", CreatedAt: t1},
		{Name: "before", Repo: repo, CreatedAt: t1},
	}
	addUsage(items)
	require.Nil(t, items[0].Usage, "the new old is charged the deleted one's spend")
	require.Nil(t, items[1].Usage, "the new lived is charged the deleted one's spend")
	require.NotNil(t, items[2].Usage)
	require.EqualValues(t, 300, items[2].Usage.TotalTokens)
	require.NotNil(t, items[3].Usage)
	require.EqualValues(t, 400, items[3].Usage.TotalTokens)
}
