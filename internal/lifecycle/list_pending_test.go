package lifecycle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// A list never works out the git figures a live monitor keeps (issue 36:
// at 500 agents a list ran 2,000 git processes while the monitor caught
// up): figures out of date, or never worked out, are shown as pending,
// the last ones with their time. Worktrees of a server no monitor keeps,
// and --fresh, are worked out as before.
func TestAListLeavesTheFiguresALiveMonitorKeepsPending(t *testing.T) {
	for k, v := range map[string]string{
		"HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
	} {
		t.Setenv(k, v)
	}
	xdg.Reload()
	defer xdg.Reload()
	repo := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "commit", "-q", "--allow-empty", "-m", "base")
	rec := func(name, socket string) *state.Record {
		path := filepath.Join(t.TempDir(), name)
		git(repo, "worktree", "add", "-q", "-b", name, path)
		require.NoError(t, os.WriteFile(filepath.Join(path, "f.txt"), []byte("x\n"), 0o644))
		git(path, "add", "f.txt")
		git(path, "commit", "-q", "-m", "work")
		return &state.Record{Name: name, Repo: repo, Path: path, Branch: name, Base: "main", Socket: socket}
	}
	const ours = "/tmp/owt-test-kept.sock"
	moved := rec("moved", ours) // figures from before its last commit
	never := rec("never", ours) // no figures yet: the monitor's first look
	other := rec("other", "/tmp/owt-test-unkept.sock")
	old := time.Now().Add(-time.Minute).Round(0)
	cache := loadStatsCache()
	cache.Entries[moved.Key()] = Stats{Ahead: 7, Dirty: 3, At: old, Tip: "0000", BaseTip: "1111"}
	cache.dirty = true
	cache.save()

	k := NewKeeper(ours, "")
	k.Beat(time.Now())
	defer k.Stop()
	tm := &tmux.Client{Socket: filepath.Join(t.TempDir(), "none")}
	items := Collect(tm, []*state.Record{moved, never, other}, ListOptions{})

	require.True(t, items[0].FiguresPending, "out of date, kept by a live monitor")
	require.Equal(t, 7, items[0].Ahead, "the last figures, shown as such")
	require.NotNil(t, items[0].FiguresAt)
	require.True(t, old.Equal(*items[0].FiguresAt), "with their own time")
	require.True(t, items[1].FiguresPending, "not worked out yet")
	require.Nil(t, items[1].FiguresAt)
	require.Zero(t, items[1].Ahead)
	require.False(t, items[2].FiguresPending, "no monitor keeps the other server's worktree")
	require.Equal(t, 1, items[2].Ahead, "worked out by the list")
	after := loadStatsCache()
	require.True(t, old.Equal(after.Entries[moved.Key()].At), "the list worked no kept figure out")
	_, ok := after.Entries[never.Key()]
	require.False(t, ok, "the list worked no kept figure out")

	// A row whose resolve owt found ready is judged on now's figures, not
	// the monitor's last: those still counted the conflicted file of the
	// merge the agent has since committed, and the list said "changed
	// since owt checked it" right after owt resolve --status said ready.
	ready := rec("ready", ours)
	ready.Resolve = &state.Resolving{Verdict: state.ResolveReady, Seen: "x " + git(ready.Path, "rev-parse", "HEAD")}
	cache = loadStatsCache()
	cache.Entries[ready.Key()] = Stats{Ahead: 1, Dirty: 1, At: old, Tip: "0000", BaseTip: "1111"}
	cache.dirty = true
	cache.save()
	k.Beat(time.Now())
	items = Collect(tm, []*state.Record{ready}, ListOptions{})
	require.False(t, items[0].FiguresPending, "a ready resolve's figures are worked out")
	require.Zero(t, items[0].Dirty)
	require.True(t, items[0].Resolve.Ready(), "still READY TO SHIP: %s", items[0].Resolve.Verdict)

	// A monitor gone (its keeper file still): the list works them out.
	require.NoError(t, os.Chtimes(keeperFile(os.Getpid()), old, old))
	items = Collect(tm, []*state.Record{moved, never}, ListOptions{})
	for _, it := range items {
		require.False(t, it.FiguresPending, it.Name)
		require.Equal(t, 1, it.Ahead, it.Name)
	}

	// --fresh works them out whoever keeps them.
	k.Beat(time.Now())
	items = Collect(tm, []*state.Record{never}, ListOptions{Fresh: true})
	require.False(t, items[0].FiguresPending)
	require.Equal(t, 1, items[0].Ahead)
	require.True(t, items[0].FiguresAt.After(old))
}

// A keeper says it runs on its own, not only when the monitor's tick gets
// round to it: a tick of a monitor of 500 agents on a loaded machine
// outlasted keeperStale, and a list took the monitor for gone.
func TestAKeeperBeatsBetweenItsMonitorsTicks(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	k := NewKeeper("/tmp/owt-test-beat.sock", "")
	defer k.Stop()
	long := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(keeperFile(os.Getpid()), long, long)) // as after a long tick
	require.False(t, keeping(os.Getpid(), time.Now()))
	require.Eventually(t, func() bool { return keeping(os.Getpid(), time.Now()) }, 3*keeperBeat, 50*time.Millisecond,
		"no beat of its own within a few seconds")
	k.Stop()
	time.Sleep(keeperBeat + 100*time.Millisecond)
	_, err := os.Stat(keeperFile(os.Getpid()))
	require.True(t, os.IsNotExist(err), "a stopped keeper beats no more")
}
