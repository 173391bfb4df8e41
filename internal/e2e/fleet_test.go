package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A fleet costs in proportion to what changes (issue 36): quiet agents
// cost the monitor no git process a tick, however short the [pr]
// poll_interval; a cold owt list reads the git figures the monitor keeps
// instead of running git four times per worktree; and a change made in a
// worktree (an edit, a new file, a commit) shows in owt list within the
// monitor's tick, as it did when list worked them out itself.
func TestQuietAgentsCostNoGitAndAColdListReadsKeptFigures(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	names := []string{"q1", "q2", "q3"}
	for _, n := range names {
		e.startAgent(repo, n, "Say hi")
	}

	// The monitor in its place, traced: a line per program it starts,
	// once the figures it kept are more than a second old (a change
	// within a second of them is taken for one they may have missed).
	e.Eventually(30*time.Second, "the figures are kept and 2 s old", func() bool {
		return figuresOlderThan(t, e, 2*time.Second)
	})
	pid := e.MonitorPID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	e.Eventually(10*time.Second, "the monitor stops", func() bool { return syscall.Kill(pid, 0) != nil })
	mon := exec.Command(e.Bins.Owt, "--trace", "monitor")
	mon.Dir, mon.Env = repo, e.Environ()
	stderr, err := mon.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, mon.Start())
	defer func() { _ = mon.Process.Signal(syscall.SIGTERM); _ = mon.Wait() }()
	var (
		mu    sync.Mutex
		gits  []string
		start = time.Now()
	)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 4 && f[0] == "owt" && f[1] == "trace:" && filepath.Base(f[3]) == "git" {
				mu.Lock()
				gits = append(gits, time.Since(start).Round(time.Millisecond).String()+" "+sc.Text())
				mu.Unlock()
			}
		}
	}()
	// It takes the figures the last monitor kept over, nothing having
	// changed since: no git per worktree for them (one for the branch
	// tips; the reactions' first looks are theirs). Then, with nothing
	// changing, three seconds of ticks (three polls' worth) start no git.
	e.Eventually(30*time.Second, "the monitor keeps every worktree's figures", func() bool {
		return len(keptFigures(t, e, mon.Process.Pid)) == len(names)
	})
	time.Sleep(time.Second)
	mu.Lock()
	before := len(gits)
	var figures []string
	for _, l := range gits {
		for _, sub := range []string{" status ", " rev-list ", " merge-base ", " diff ", " ls-files "} {
			if strings.Contains(l, sub) {
				figures = append(figures, l)
			}
		}
	}
	mu.Unlock()
	require.Empty(t, figures, "git figures worked out again by a monitor taking kept ones over")
	time.Sleep(3 * time.Second)
	mu.Lock()
	quiet := append([]string(nil), gits[before:]...)
	mu.Unlock()
	require.Empty(t, quiet, "git processes the monitor started for quiet agents")

	// Figures the monitor keeps that are not there (here: the cache was
	// removed) a list leaves to it: pending, with no git of the list's
	// own; the monitor works them out.
	require.NoError(t, os.Remove(statsCacheFile(e)))
	r := e.Owt(repo, "--trace", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.LessOrEqual(t, gitsIn(r.Stderr), 1, "a list works out no figure a live monitor keeps (its one git: which repository this is):\n%s", r.Stderr)
	var pending []struct {
		Pending   bool       `json:"figures_pending"`
		FiguresAt *time.Time `json:"figures_at"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &pending))
	require.Len(t, pending, len(names))
	for _, it := range pending {
		require.True(t, it.Pending, r.Stdout)
		require.Nil(t, it.FiguresAt, "none worked out yet")
	}
	e.Eventually(10*time.Second, "the monitor works the removed figures out", func() bool {
		return len(keptFigures(t, e, mon.Process.Pid)) == len(names)
	})

	// Figures a list works out itself (--fresh) are the watching
	// monitor's to keep from then on, no git of its own.
	require.NoError(t, os.Remove(statsCacheFile(e)))
	mu.Lock()
	before = len(gits)
	mu.Unlock()
	e.MustOwt(repo, "list", "--json", "--fresh")
	e.Eventually(10*time.Second, "the monitor keeps the figures the list wrote", func() bool {
		return len(keptFigures(t, e, mon.Process.Pid)) == len(names)
	})
	mu.Lock()
	require.Len(t, gits, before, "git processes the monitor started to keep a list's figures")
	mu.Unlock()

	// Cold: the figures are older than the list's own cache lifetime
	// (lifecycle.StatsTTL, 10 s), as a user who runs owt list now and
	// then finds them.
	e.Eventually(30*time.Second, "the kept figures grow older than 10 s", func() bool {
		return figuresOlderThan(t, e, 11*time.Second)
	})
	r = e.Owt(repo, "--trace", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	listGits := gitsIn(r.Stderr)
	require.LessOrEqual(t, listGits, 1, "a cold list of kept figures runs git once (which repository this is; the branch tips are read from the ref files), not four times per worktree:\n%s", r.Stderr)
	var items []struct {
		Name      string
		Dirty     int
		FiguresAt *time.Time `json:"figures_at"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &items))
	require.Len(t, items, len(names))
	for _, it := range items {
		require.NotNil(t, it.FiguresAt, "the figures say how old they are")
		require.Less(t, *it.FiguresAt, time.Now().Add(-10*time.Second), "the age shown is the figures' own")
	}

	// Changes show within the monitor's tick, never the cached figures.
	shows := func(name, what string, ok func(Item) bool) {
		t.Helper()
		e.Eventually(5*time.Second, name+": "+what, func() bool {
			var items []Item
			require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "list", "--json")), &items))
			for _, it := range items {
				if it.Name == name {
					return ok(it)
				}
			}
			return false
		})
	}
	q1, q2, q3 := e.Find(repo, "q1"), e.Find(repo, "q2"), e.Find(repo, "q3")
	e.WriteFile(q1.Path, "src/deep/new.go", "package deep\n")
	shows("q1", "a new file in a new folder is one uncommitted file", func(it Item) bool { return it.Dirty == 1 })
	e.WriteFile(q1.Path, "src/deep/other.go", "package deep\n")
	shows("q1", "a second file in that folder is two", func(it Item) bool { return it.Dirty == 2 })
	e.WriteFile(q2.Path, "README.md", "# app\nmore\n")
	shows("q2", "an edited file is uncommitted, one line added", func(it Item) bool { return it.Dirty == 1 && it.Insertions == 1 })
	e.WriteFile(q3.Path, "notes.txt", "n\n")
	e.Git(q3.Path, "add", "notes.txt")
	e.Git(q3.Path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notes")
	shows("q3", "a commit is one ahead, nothing uncommitted", func(it Item) bool { return it.Ahead == 1 && it.Dirty == 0 })
}

// gitsIn counts the git processes in an owt --trace's stderr.
func gitsIn(stderr string) int {
	n := 0
	for _, l := range strings.Split(stderr, "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[1] == "trace:" && filepath.Base(f[3]) == "git" {
			n++
		}
	}
	return n
}

// statsCacheFile is owt list's cache of git figures in this world.
func statsCacheFile(e *Env) string {
	return filepath.Join(e.Var("XDG_CACHE_HOME"), "owt", "stats.json")
}

// keptFigures are the cache's entries the monitor pid keeps.
func keptFigures(t *testing.T, e *Env, pid int) map[string]bool {
	var c struct {
		Entries map[string]map[string]any `json:"entries"`
	}
	data, err := os.ReadFile(statsCacheFile(e))
	if err != nil || json.Unmarshal(data, &c) != nil {
		return nil
	}
	out := map[string]bool{}
	for k, v := range c.Entries {
		if kp, _ := v["keeper"].(float64); int(kp) == pid {
			out[k] = true
		}
	}
	return out
}

// figuresOlderThan reports whether every cached figure was worked out
// more than d ago.
func figuresOlderThan(t *testing.T, e *Env, d time.Duration) bool {
	data, err := os.ReadFile(statsCacheFile(e))
	require.NoError(t, err)
	var c struct {
		Entries map[string]struct{ At time.Time } `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(data, &c))
	for _, v := range c.Entries {
		if time.Since(v.At) <= d {
			return false
		}
	}
	return len(c.Entries) > 0
}
