package lifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestSortForPickerPutsWaitingFirst(t *testing.T) {
	t0 := time.Now()
	items := []Item{
		{Name: "gone", Status: "exited", StatusSince: t0},
		{Name: "busy", Status: "working", StatusSince: t0},
		{Name: "done-early", Status: "idle", StatusSince: t0},
		{Name: "ask-old", Status: "waiting", StatusSince: t0},
		{Name: "done-late", Status: "idle", StatusSince: t0.Add(time.Minute)},
		{Name: "ask-new", Status: "waiting", StatusSince: t0.Add(time.Minute)},
		{Name: "boot", Status: "starting", StatusSince: t0},
	}
	SortForPicker(items)
	var names []string
	for _, it := range items {
		names = append(names, it.Name)
	}
	require.Equal(t, []string{"ask-new", "ask-old", "done-late", "done-early", "busy", "boot", "gone"}, names)
}

func TestRecordHere(t *testing.T) {
	dir := t.TempDir()
	a := &state.Record{Name: "a", Session: "shop/a", Path: dir + "/shop.worktrees/a"}
	ab := &state.Record{Name: "ab", Session: "shop/ab", Path: dir + "/shop.worktrees/ab"}
	recs := []*state.Record{a, ab}
	require.Same(t, ab, RecordHere(recs, "shop/ab", ""))
	require.Same(t, a, RecordHere(recs, "other", dir+"/shop.worktrees/a/src/pkg"))
	require.Same(t, ab, RecordHere(recs, "", dir+"/shop.worktrees/ab"))
	require.Nil(t, RecordHere(recs, "", dir+"/shop.worktrees/abc"), "a prefix of the name is not inside")
	require.Nil(t, RecordHere(recs, "main", dir))
}
