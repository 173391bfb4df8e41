package e2e

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

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
