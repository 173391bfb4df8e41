package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// An agent on a host that made no commit, started from a local base the
// host's clone lacks (its main checked out there, left behind), holds
// only commits that are here already: owt delete NAME@HOST deletes it
// without --force. So does the cleanup of an agent whose work merged here
// while its teardown there did not happen (merge --keep stands in for a
// teardown cut off). Work that is only there is still refused.
func TestDeleteOnAHostCountsOnlyCommitsNotHere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	for i, f := range []string{"a.txt", "b.txt"} {
		e.WriteFile(repo, f, "local\n")
		e.Git(repo, "add", ".")
		e.Git(repo, "commit", "-q", "-m", "local only "+string(rune('1'+i)))
	}
	// No commit of its own (and no other branch there holding the base's).
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "idle1", "nothing to do")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	idle := items[0].Path
	r := e.Owt(repo, "delete", "idle1@box", "--dry-run")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "nothing would be lost")
	r = e.Owt(repo, "delete", "idle1@box")
	require.Equal(t, 0, r.Code, "refused an agent with no commit of its own: %s", r.Stderr)
	require.Contains(t, r.Stdout, "deleted idle1@box")
	_, err := os.Stat(idle)
	require.True(t, os.IsNotExist(err), "its worktree on the host is removed")

	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "work1", "some work")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1)
	paths := map[string]string{"work1": items[0].Path}

	// A commit only there: refused, and the count is its own, not the base's.
	out, err := h.Run("cd '" + paths["work1"] + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)
	r = e.Owt(repo, "delete", "work1@box")
	requireOneLineError(t, r, "--force")
	require.Contains(t, r.Stderr, "1 commit(s)")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "refused: nothing deleted")

	// Its work merged here, the agent kept there: deleting it loses nothing.
	e.MustOwt(repo, "merge", "work1@box", "--yes", "--keep", "--force")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	r = e.Owt(repo, "delete", "work1@box", "--dry-run")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "nothing would be lost")
	r = e.Owt(repo, "delete", "work1@box")
	require.Equal(t, 0, r.Code, "refused an agent whose work is merged here: %s", r.Stderr)
	e.Eventually(15*time.Second, "no agent left on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 0
	})
}

// halfMakeOnHost starts owt new --host box --name name and drops the
// connection (sshd and all it runs killed, as a machine that drops off
// the network) while git checks the worktree out there: a smudge filter
// in the host's clone stalls on slow.txt until then. The host is back
// when it returns; the owt new here failed.
func halfMakeOnHost(e *Env, h *fixture.SSHHost, repo, name string) {
	t := e.t
	t.Helper()
	_, _ = h.Run("rm -f ~/smudging")
	cmd := exec.Command(e.Bins.Owt, "new", "--host", "box", "--no-setup", "--no-agent", "--name", name, "half made")
	cmd.Dir, cmd.Env = repo, e.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	e.Eventually(60*time.Second, "git checking the worktree out on the host", func() bool {
		out, _ := h.Run("test -e ~/smudging && echo yes")
		return out == "yes"
	})
	h.Stop()
	select {
	case err := <-done:
		require.Error(t, err, "owt new said it made %s while the connection dropped", name)
	case <-time.After(60 * time.Second):
		t.Fatal("owt new went on after the connection dropped")
	}
	h.Start()
}

// An ssh drop during owt new --host leaves nothing that owt cannot see or
// undo: owt doctor here names the half-made agent on the host, owt delete
// NAME@HOST removes what it left (git's own files, not anyone's work), and
// a retry of the same name makes it.
func TestNewOnHostCutOffIsSeenAndUndone(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	for i := 0; i < 12; i++ {
		e.WriteFile(repo, fmt.Sprintf("f%02d.txt", i), "file\n")
	}
	e.WriteFile(repo, "slow.txt", "slow\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "files")
	// The smudge stalls the first checkout of slow.txt (not later ones).
	gitAs(t, h, clone, "config", "filter.slow.smudge", `sh -c 'if test -e "$HOME/smudging"; then cat; else touch "$HOME/smudging"; sleep 120; cat; fi'`)
	out, err := h.Run("echo 'slow.txt filter=slow' > '" + clone + "/.git/info/attributes'")
	require.NoError(t, err, out)

	halfMakeOnHost(e, h, repo, "half")
	r := e.Owt(repo, "doctor")
	require.NotEqual(t, 0, r.Code, "doctor found nothing: %s", r.Stdout)
	require.Contains(t, r.Stdout, "half@box")
	r = e.Owt(repo, "delete", "half@box")
	require.Equal(t, 0, r.Code, "delete of the half-made agent: %s", r.Stderr)
	items, _ := e.hostList(repo)
	require.Empty(t, items)
	_, err = os.Stat(filepath.Join(h.Home, "src", "app.worktrees", "half"))
	require.True(t, os.IsNotExist(err), "its worktree on the host is removed")
	require.Contains(t, e.MustOwt(repo, "doctor"), "all good")

	halfMakeOnHost(e, h, repo, "again")
	r = e.Owt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "again", "the retry")
	require.Equal(t, 0, r.Code, "the retry: %s", r.Stderr)
	items, _ = e.hostList(repo)
	require.Len(t, items, 1)
	require.Equal(t, "again", items[0].Name)
	require.Equal(t, "clean", strings.TrimSpace(gitAs(t, h, items[0].Path, "status", "--porcelain")+"clean"))
}

// max_agents holds when several owt new --host run at once: the host's
// owt counts under the lock every owt new there takes.
func TestMaxAgentsHoldsForNewOnHostAtOnce(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo, "--max-agents", "2")
	const n = 5
	codes := make(chan int, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			cmd := exec.Command(e.Bins.Owt, "new", "--host", "box", "--no-setup", "--no-agent", "--name", fmt.Sprintf("at%d", i), "at once")
			cmd.Dir, cmd.Env = repo, e.Environ()
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			codes <- code
		}(i)
	}
	made := 0
	for i := 0; i < n; i++ {
		if <-codes == 0 {
			made++
		}
	}
	items, _ := e.hostList(repo)
	require.Len(t, items, made, "each owt new that said it made an agent did")
	require.LessOrEqual(t, made, 2, "max_agents is 2")
	require.GreaterOrEqual(t, made, 1)
	r := e.Owt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "more", "one more")
	if made == 2 {
		requireOneLineError(t, r, "max_agents")
	}
}

// An agent owt deleted or merged on a host is gone from what owt knows of
// the host: when the host then cannot be reached, owt list shows only
// the agents still there (as unreachable), and owt wait --all waits on
// none of the others.
func TestUnreachableHostShowsNoAgentOwtRemovedThere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	for _, n := range []string{"keep", "gone", "landed"} {
		e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", n, "task "+n)
	}
	items, _ := e.hostList(repo)
	require.Len(t, items, 3)
	var landed string
	for _, it := range items {
		if it.Name == "landed" {
			landed = it.Path
		}
	}
	out, err := h.Run("cd '" + landed + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)
	e.MustOwt(repo, "delete", "gone@box", "--yes")
	e.MustOwt(repo, "merge", "landed@box", "--yes", "--force")
	_, _ = e.hostList(repo, "--all")

	h.Stop()
	e.Eventually(40*time.Second, "list says box is unreachable", func() bool {
		items, _ = e.hostList(repo)
		return len(items) > 0 && items[0].Unreachable
	})
	var names []string
	for _, it := range items {
		names = append(names, it.Name)
	}
	require.Equal(t, []string{"keep"}, names)
	all, _ := e.hostList(repo, "--all")
	names = nil
	for _, it := range all {
		names = append(names, it.Name)
	}
	require.Equal(t, []string{"keep"}, names)
	r := e.Owt(repo, "wait", "--all", "--timeout", "2s")
	require.NotContains(t, r.Stdout+r.Stderr, "gone")
	require.NotContains(t, r.Stdout+r.Stderr, "landed")
}

// owt wait NAME@HOST on a host that cannot be reached waits until
// --timeout, as --all does, saying where the agent stood last; a host
// that comes back within it lets the wait end there.
func TestWaitOnOneAgentOfAnUnreachableHostWaitsItsTimeout(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a far task")
	e.MustOwt(repo, "wait", "far@box", "--until", "idle", "--timeout", "30s")
	items, _ := e.hostList(repo) // seen there, idle
	require.Len(t, items, 1)

	h.Stop()
	e.Eventually(40*time.Second, "list says box is unreachable", func() bool {
		items, _ = e.hostList(repo)
		return len(items) == 1 && items[0].Unreachable
	})
	start := time.Now()
	r := e.Owt(repo, "wait", "far@box", "--until", "idle", "--timeout", "3s")
	took := time.Since(start)
	require.Equal(t, 1, r.Code, r.Stderr)
	require.GreaterOrEqual(t, took, 3*time.Second, "gave up before its timeout: %s", r.Stderr)
	requireOneLineError(t, r, "far@box is unreachable (host box; last idle)")

	cmd := exec.Command(e.Bins.Owt, "wait", "far@box", "--until", "idle", "--timeout", "60s")
	cmd.Dir, cmd.Env = repo, e.Environ()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	time.Sleep(2 * time.Second)
	select {
	case err := <-done:
		t.Fatalf("owt wait ended while the host was away: %v", err)
	default:
	}
	h.Start()
	select {
	case err := <-done:
		require.NoError(t, err, "the wait ends once the host answers")
		require.Contains(t, stdout.String(), "idle")
	case <-time.After(50 * time.Second):
		t.Fatal("owt wait did not end after the host came back")
	}
}

// Merge and ship of an agent on a host name it NAME@HOST, so it is never
// taken for a local agent of the same name; a conflict names the host's
// branch (not owt's fetched copy, gone by then) and advises what an
// agent on a host can do, not --leave-conflicts, which it refuses.
func TestLandingOfARemoteAgentNamesItsHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--no-setup", "--no-agent", "--name", "dup", "here")
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "dup", "there")
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "clash", "there too")
	paths := map[string]string{}
	items, _ := e.hostList(repo)
	for _, it := range items {
		if it.Host == "box" {
			paths[it.Name] = it.Path
		}
	}
	out, err := h.Run("cd '" + paths["dup"] + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)
	out, err = h.Run("cd '" + paths["clash"] + "' && echo theirs > README.md && git commit -qam 'theirs'")
	require.NoError(t, err, out)
	e.WriteFile(repo, "README.md", "ours\n")
	e.Git(repo, "commit", "-qam", "ours")

	out = e.MustOwt(repo, "merge", "dup@box", "--yes", "--force")
	require.Contains(t, out, "removed dup@box")
	require.NotContains(t, out, "removed dup:")
	items, _ = e.hostList(repo)
	var clashBranch string
	for _, it := range items {
		if it.Name == "clash" {
			clashBranch = it.Branch
		}
	}

	r := e.Owt(repo, "merge", "clash@box", "--yes", "--force")
	requireOneLineError(t, r, "conflicts with main")
	require.NotContains(t, r.Stderr, "--leave-conflicts")
	require.NotContains(t, r.Stderr, "owt/remote")
	require.Contains(t, r.Stderr, clashBranch)
	require.Contains(t, r.Stderr, "clash@box")
}

// One machine and account added under two names is said so, at host add
// and in host list: its agents would show, and count, under each name.
func TestOneMachineAddedTwiceIsSaidSo(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	e.MustOwt(e.Root, "host", "add", "box", h.Address, "--yes")
	r := e.Owt(e.Root, "host", "add", "box2", h.Address, "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "box2 is the same machine and account as box")
	var rows []struct {
		Name   string
		SameAs []string `json:"same_as"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(e.Root, "host", "list", "--json")), &rows))
	require.Len(t, rows, 2)
	for _, row := range rows {
		require.Len(t, row.SameAs, 1, row.Name)
	}
	require.Contains(t, e.MustOwt(e.Root, "host", "list"), "box2: the same machine and account as box")
}

// When the host's tmux server dies, its agents count in the local
// restore mark (⟲ N), and owt restore here has the host's owt bring each
// back there, on its own conversation.
func TestRestoreBringsBackAgentsOfAHostWhoseTmuxDied(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	mark := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-restore"); return out }
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")
	e.MustOwt(repo, "wait", "far@box", "--until", "idle", "--timeout", "30s")
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.Eventually(20*time.Second, "the remote agent in the bar", func() bool { return strings.Contains(bar(), "○ 1") })
	require.Empty(t, mark())

	out, err := h.Run("tmux kill-server")
	require.NoError(t, err, out)
	e.Eventually(40*time.Second, "the restore mark counts far@box", func() bool { return strings.Contains(mark(), "1") })

	r := e.Owt(repo, "restore", "--wait", "20s")
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "far@box: ")
	e.Eventually(30*time.Second, "far back on the host", func() bool {
		out, err := h.Run("tmux list-sessions -F '#{session_name}'")
		return err == nil && strings.Contains(out, "far")
	})
	e.Eventually(40*time.Second, "the restore mark cleared", func() bool { return !strings.Contains(mark(), "1") })
}
