package run

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childRun is a run of a, b → c, with a and b done on their branches.
func childRun(t *testing.T) *Run {
	t.Helper()
	p, err := Parse("p.toml", []byte(`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
[[task]]
id = "c"
task = "c"
depends_on = ["a", "b"]
`))
	require.NoError(t, err)
	r := NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	for _, id := range []string{"a", "b"} {
		tr, _ := r.Task(id)
		tr.State, tr.Branch, tr.Name = Done, "r/"+id, "r-"+id
	}
	return r
}

func conflictOf(parents ...string) *ParentsConflictError {
	pc := ParentConflict{Parents: parents, Files: []string{"same.txt"}, Tips: map[string]string{}}
	for _, p := range parents {
		pc.Tips[p] = "tip-" + p
	}
	return &ParentsConflictError{pc}
}

func TestParentsConflictBlocksTheChildWithoutAnAttempt(t *testing.T) {
	now := time.Unix(100, 0)
	r := childRun(t)
	c, _ := r.Task("c")
	c.State, c.Attempt = Starting, 1

	_, ok := r.NotStarted(c, errors.New("disk full"), now)
	require.False(t, ok, "another start failure is not a block")
	_, ok = r.NotStarted(c, nil, now)
	require.False(t, ok)

	evs, ok := r.NotStarted(c, conflictOf("a", "b"), now)
	require.True(t, ok)
	require.Equal(t, Blocked, c.State)
	require.Equal(t, 0, c.Attempt, "nothing started")
	require.Empty(t, c.BlockedBy, "not a parent's failure: Reblock leaves it alone")
	require.Contains(t, c.Why, "its parents a and b conflict in same.txt")
	require.Equal(t, "blocked", evs[0].Event)
	require.Empty(t, r.Reblock(now))
	require.Equal(t, Blocked, c.State)
	require.Empty(t, Ready(r, now))
}

func TestConflictBlockedChildIsReleasedWhenAParentChanges(t *testing.T) {
	now := time.Unix(100, 0)
	block := func() (*Run, *TaskRun) {
		r := childRun(t)
		c, _ := r.Task("c")
		c.State = Starting
		_, ok := r.NotStarted(c, conflictOf("a", "b"), now)
		require.True(t, ok)
		return r, c
	}
	same := map[string]string{"r/a": "tip-a", "r/b": "tip-b"}

	r, c := block()
	require.Empty(t, r.ReleaseConflicts(same, now), "nothing changed: still blocked")
	require.Empty(t, r.ReleaseConflicts(map[string]string{}, now), "tips unknown: still blocked")
	require.Equal(t, Blocked, c.State)

	// The user resolved on b's branch: it moved.
	evs := r.ReleaseConflicts(map[string]string{"r/a": "tip-a", "r/b": "resolved"}, now)
	require.Equal(t, "released", evs[0].Event)
	require.Contains(t, evs[0].Detail, "branch of parent b moved")
	require.Equal(t, Pending, c.State)
	require.Nil(t, c.Conflict)
	require.Empty(t, c.Why)
	require.Equal(t, []string{"c"}, Ready(r, now), "merged afresh when it starts")

	// A parent no longer done (skipped, or sent back to work): released;
	// Ready waits for a parent at work to be done again.
	for _, st := range []TaskState{Skipped, Pending, Running} {
		r, c = block()
		a, _ := r.Task("a")
		a.State = st
		evs = r.ReleaseConflicts(same, now)
		require.Len(t, evs, 1, "%s", st)
		require.Contains(t, evs[0].Detail, "parent a is "+string(st))
		require.Equal(t, Pending, c.State)
		if st != Skipped {
			require.NotContains(t, Ready(r, now), "c", "c waits for a")
		}
	}

	r, c = block()
	a, _ := r.Task("a")
	a.State = Failed
	evs = r.ReleaseConflicts(same, now)
	require.Equal(t, Blocked, c.State, "released, then blocked by its failed parent")
	require.Equal(t, []string{"a"}, c.BlockedBy)
	require.Equal(t, "blocked", evs[len(evs)-1].Event)
	_, err := r.Retry("a", now)
	require.NoError(t, err)
	require.Equal(t, Pending, c.State, "the parent's retry lets it wait again")
}

func TestAChildNeverStartsFromAParentBranchThatLostItsWork(t *testing.T) {
	now := time.Unix(100, 0)
	r := childRun(t)
	c, _ := r.Task("c")
	c.State, c.Attempt = Starting, 1

	_, ok := r.NotStarted(c, errors.New("disk full"), now)
	require.False(t, ok, "another start failure is not a hold")

	evs, ok := r.NotStarted(c, &ParentWorkError{Parent: "a", Why: "its branch r/a has no commits ahead of the task's start"}, now)
	require.True(t, ok)
	require.Equal(t, Pending, c.State)
	require.Equal(t, 0, c.Attempt, "nothing started")
	a, _ := r.Task("a")
	require.Equal(t, NeedsYou, a.State, "the parent is no longer done")
	require.Contains(t, a.Why, "no commits ahead")
	require.Equal(t, "needs_you", evs[len(evs)-1].Event)
	require.Empty(t, Ready(r, now), "c waits for a")
}
