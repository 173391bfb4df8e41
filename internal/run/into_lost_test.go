package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAFinishedRunThatLostALandingPausesAndRetryLandsItAgain(t *testing.T) {
	now := time.Unix(100, 0)
	r := childRun(t)
	r.Into = "feat/x"
	for _, id := range []string{"a", "b"} {
		task, _ := r.Task(id)
		task.State, task.LandedTip = Landed, "tip-"+id
	}
	r.State = Finished

	r.loseLandings("feat/x no longer exists", []string{"a"}, now)
	require.Equal(t, Paused, r.State, "a finished run that lost work waits for the user")
	a, _ := r.Task("a")
	require.True(t, a.lostLanding())

	evs, err := r.Retry("a", now)
	require.NoError(t, err)
	require.Equal(t, Done, a.State, "its work is done: it lands again")
	require.Nil(t, a.Failure)
	require.Equal(t, Active, r.State, "paused only for what into lost: it goes on")
	require.Equal(t, "retry", evs[0].Event)
}

func TestRefMarkChangesWhenTheRefIsWrittenAnew(t *testing.T) {
	rec, dir := taskRepo(t)
	before := RefMark(dir, rec.Branch)
	require.NotEmpty(t, before)
	require.Equal(t, before, RefMark(dir, rec.Branch), "nothing moved")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "moved")
	require.NotEqual(t, before, RefMark(dir, rec.Branch))
	moved := RefMark(dir, rec.Branch)
	gitIn(t, dir, "switch", "-q", "main")
	gitIn(t, dir, "branch", "-q", "-D", rec.Branch)
	require.NotEqual(t, moved, RefMark(dir, rec.Branch), "deleted")
}

func TestIntoRebasedStillHoldsWhatLanded(t *testing.T) {
	rec, dir := taskRepo(t)
	commitFile(t, dir, "a.txt")
	tip := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "switch", "-q", "-c", "into", "main")
	gitIn(t, dir, "merge", "-q", "--ff-only", rec.Branch)
	r := &Run{Name: "g", Repo: dir, Into: "into", Tasks: []*TaskRun{{ID: "a", State: Landed, LandedTip: tip}}}
	moveMain(t, dir, "m.txt") // leaves "task" checked out
	gitIn(t, dir, "switch", "-q", "into")
	gitIn(t, dir, "rebase", "-q", "main")
	_, lost, err := r.LostLandings()
	require.NoError(t, err)
	require.Empty(t, lost, "the rebased into holds a's work")

	gitIn(t, dir, "reset", "-q", "--hard", "main")
	why, lost, err := r.LostLandings()
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, lost)
	require.Contains(t, why, "no longer contains")
}

func TestAStoppedRunThatLostALandingStaysStoppedSayingWhy(t *testing.T) {
	now := time.Unix(100, 0)
	r := childRun(t)
	r.Into = "feat/x"
	a, _ := r.Task("a")
	a.State, a.LandedTip = Landed, "tip-a"
	r.State = Stopped

	r.loseLandings("feat/x no longer exists", []string{"a"}, now)
	require.Equal(t, Stopped, r.State, "stopped by the user: it stays stopped")
	require.Contains(t, r.Why, "owt run resume")
	require.Equal(t, NeedsYou, a.State)

	evs, err := r.Retry("a", now)
	require.NoError(t, err)
	require.Equal(t, Done, a.State)
	require.Equal(t, Stopped, r.State)
	require.Contains(t, evs[0].Detail, "once the run is resumed")
}

// NoteLost notes how into looked when it held every landing, on the run,
// and asks git again only once into moved: then what it lost is noted.
func TestNoteLostAsksGitAgainOnlyOnceIntoMoved(t *testing.T) {
	rec, dir := taskRepo(t)
	commitFile(t, dir, "a.txt")
	tip := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "branch", "into", rec.Branch)
	store := Store{Dir: t.TempDir()}
	r := childRun(t)
	r.Repo, r.Into = dir, "into"
	a, _ := r.Task("a")
	a.State, a.LandedTip = Landed, tip
	require.NoError(t, store.Create(r))

	now := time.Unix(100, 0)
	got, err := store.NoteLost(r, now)
	require.NoError(t, err)
	require.Equal(t, RefMark(dir, "into"), got.IntoHeld)
	onDisk, err := store.Load(r.Name)
	require.NoError(t, err)
	require.Equal(t, got.IntoHeld, onDisk.IntoHeld)
	require.True(t, r.UpdatedAt.Equal(onDisk.UpdatedAt), "no change the log tells")

	gitIn(t, dir, "branch", "-f", "into", "main") // into reset: a's work is gone
	got, err = store.NoteLost(onDisk, now)
	require.NoError(t, err)
	a, _ = got.Task("a")
	require.Equal(t, NeedsYou, a.State)
	require.Equal(t, Paused, got.State)
}
