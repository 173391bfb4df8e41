package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/owt-tmux/owt/internal/status"
)

// swarmJSON is the part of owt swarm start/list --json the tests read.
type swarmJSON struct {
	Host, Goal, Path, Branch, Session string
	Workers                           []struct {
		Name, Role, Tool, Status, Pane string
		ReadOnly                       bool `json:"read_only"`
	}
}

// A swarm of four roles: a coordinator and each worker in its own window
// of the new worktree's session, each its own agent (its own OWT_NAME,
// status in owt list); the reviewer's write is refused by its tool's plan
// mode; the tester's edit outside tests is reported when the swarm stops,
// which closes the windows and keeps the worktree and its commits.
func TestSwarmFourRoles(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	out := e.MustOwt(repo, "swarm", "start", "--tool", "claude", "--json", "add a greeting")
	var sw swarmJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
	roles := []string{"coordinator", "researcher", "implementer", "reviewer", "tester"}
	require.Len(t, sw.Workers, len(roles))
	host := sw.Host
	windows := map[string]bool{}
	for i, w := range sw.Workers {
		require.Equal(t, host+"/"+roles[i], w.Name)
		require.Equal(t, w.Role == "researcher" || w.Role == "reviewer", w.ReadOnly, w.Name)
		win := strings.TrimSpace(e.Tmux("display-message", "-p", "-t", w.Pane, "#{session_name} #{window_id} #{window_name}"))
		f := strings.Fields(win)
		require.Len(t, f, 3, win)
		require.Equal(t, sw.Session, f[0], "%s runs in the worktree's session", w.Name)
		require.Equal(t, w.Role, f[2])
		require.False(t, windows[f[1]], "%s has a window of its own", w.Name)
		windows[f[1]] = true
	}

	// Each is its own agent: OWT_NAME, its role prompt, plan mode for the
	// read-only roles; each has a status in owt list, under the host.
	for _, role := range roles {
		name := host + "/" + role
		prompts := e.WaitPrompts(name, 1)
		require.Contains(t, prompts[0], "add a greeting")
		start, ok := e.Start(name)
		require.True(t, ok)
		plan := slices.Contains(start.Argv, "plan")
		require.Equal(t, role == "researcher" || role == "reviewer", plan, "%s argv %v", name, start.Argv)
	}
	require.Contains(t, e.Prompts(host + "/coordinator")[0], host+"/reviewer")
	require.Contains(t, e.Prompts(host + "/tester")[0], host+"/coordinator")
	e.Eventually(20*time.Second, "every worker idle in owt list", func() bool {
		idle := 0
		for _, it := range e.List(repo) {
			if strings.HasPrefix(it.Name, host+"/") && it.Status == "idle" {
				idle++
			}
		}
		return idle == len(roles)
	})
	var names []string
	for _, it := range e.List(repo) {
		names = append(names, it.Name)
	}
	require.Contains(t, e.MustOwt(repo, "list", "--json"), `"swarm": {
      "host": "`+host+`",
      "role": "reviewer"`)
	require.Equal(t, append([]string{host}, prefixed(host, roles)...), names, "the workers show under their worktree")

	// The reviewer's write is refused by claude's plan mode.
	e.MustOwt(repo, "send", host+"/reviewer", "!write review.txt found nothing")
	e.Eventually(15*time.Second, "the reviewer's write refused", func() bool {
		for _, ev := range e.Events() {
			if ev.Event == "refused" && ev.Agent == host+"/reviewer" {
				return true
			}
		}
		return false
	})
	_, err := os.Stat(filepath.Join(sw.Path, "review.txt"))
	require.True(t, os.IsNotExist(err), "the reviewer wrote a file")

	// The implementer commits; the tester writes a test and a non-test file.
	e.MustOwt(repo, "send", host+"/implementer", "!write greet.go package greet\n!commit Add greet")
	e.MustOwt(repo, "send", host+"/tester", "!write greet_test.go package greet\n!write helper.go package greet")
	e.WaitPrompts(host+"/implementer", 2)
	e.WaitPrompts(host+"/tester", 2)
	e.Eventually(20*time.Second, "the commit and the tester's files", func() bool {
		_, err1 := os.Stat(filepath.Join(sw.Path, "helper.go"))
		log := e.Git(sw.Path, "log", "--oneline")
		return err1 == nil && strings.Contains(log, "Add greet")
	})
	e.Eventually(15*time.Second, "the tester's edits noted", func() bool {
		var list []swarmJSON
		_ = json.Unmarshal([]byte(e.MustOwt(repo, "swarm", "list", "--json")), &list)
		return len(list) == 1 && strings.Contains(e.MustOwt(repo, "swarm", "list", "--json"), "helper.go")
	})

	// Landing the worktree ends the swarm: refused while the tester's
	// edit outside tests stands (once no member is busy).
	e.Eventually(20*time.Second, "merge refused for the tester's edit", func() bool {
		r := e.Owt(repo, "merge", "--yes", host)
		require.NotEqual(t, 0, r.Code, "merged: %s", r.Stdout)
		return strings.Contains(r.Stderr, "tester in "+host+" changed files that are not tests: helper.go")
	})

	// swarm send reaches every worker.
	sent := e.MustOwt(repo, "swarm", "send", host, "status please\n!sleep 4")
	for _, role := range roles {
		require.Contains(t, sent, "sent to "+host+"/"+role)
	}

	// Members are mid-turn: stop refuses, naming them, and closes nothing.
	e.Eventually(20*time.Second, "a member working", func() bool {
		for _, it := range e.List(repo) {
			if strings.HasPrefix(it.Name, host+"/") && it.Status == "working" {
				return true
			}
		}
		return false
	})
	r := e.Owt(repo, "swarm", "stop", host)
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "in the middle of a turn")
	require.Contains(t, r.Stderr, "--force")
	e.Eventually(30*time.Second, "every member idle again", func() bool {
		idle := 0
		for _, it := range e.List(repo) {
			if strings.HasPrefix(it.Name, host+"/") && it.Status == "idle" {
				idle++
			}
		}
		return idle == len(roles)
	})
	stop := e.MustOwt(repo, "swarm", "stop", host)
	require.Contains(t, stop, "NEEDS YOU: the tester changed files that are not tests: helper.go")
	require.NotContains(t, stop, "greet_test.go")
	require.NotContains(t, stop, "greet.go,")
	panes := e.Tmux("list-panes", "-a", "-F", "#{pane_id}")
	for _, w := range sw.Workers {
		require.NotContains(t, strings.Fields(panes), w.Pane, "the window of %s is closed", w.Name)
	}
	items := e.List(repo)
	require.Len(t, items, 1, "the workers are forgotten, the worktree kept")
	require.Equal(t, host, items[0].Name)
	require.Contains(t, e.Git(sw.Path, "log", "--oneline"), "Add greet", "the commits stay")
	require.Contains(t, e.MustOwt(repo, "list", "--json"), "swarm-tester: the swarm's tester changed 1 file(s) that are not tests: helper.go", "the host needs you")
	require.Equal(t, "[]\n", e.MustOwt(repo, "swarm", "list", "--json"))
}

func prefixed(host string, roles []string) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = host + "/" + r
	}
	return out
}

// A worker is no worktree: owt delete refuses it and points at owt swarm
// stop; deleting the worktree ends its swarm. A tool with no read-only
// mode is refused for the read-only roles, and nothing is made.
func TestSwarmDeleteAndRefusals(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "fix", "fix it")
	r := e.Owt(repo, "swarm", "start", "--tool", "pi", "-w", "fix", "review it")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "no read-only mode")
	e.MustOwt(repo, "swarm", "start", "--tool", "claude", "-w", "fix", "--workers", "reviewer", "review it")
	r = e.Owt(repo, "swarm", "start", "--tool", "claude", "-w", "fix", "--workers", "reviewer", "again")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "already has a swarm")

	// The bar counts every member; doctor finds nothing wrong with
	// agents sharing a worktree and its session.
	e.Eventually(20*time.Second, "three idle agents on the bar", func() bool {
		return strings.Contains(e.Tmux("show-options", "-gv", "@owt-status-line"), status.Glyph("idle")+" 3")
	})
	require.Empty(t, doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout).kinds(false))

	r = e.Owt(repo, "delete", "-y", "fix/reviewer")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "owt swarm stop fix")
	require.Len(t, e.List(repo), 3)

	e.MustOwt(repo, "delete", "-y", "--force", "fix")
	require.Empty(t, e.List(repo), "deleting the worktree forgets its workers")
	require.Equal(t, "[]\n", e.MustOwt(repo, "swarm", "list", "--json"))
}

// A state file rebuilt after corruption gives the swarm's workers back
// (their windows are marked), each with its own pane and mode, and the
// worktree its own pane, not a worker's.
func TestSwarmSurvivesACorruptStateFile(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	out := e.MustOwt(repo, "swarm", "start", "--tool", "claude", "--workers", "implementer,reviewer", "--json", "add a greeting")
	var sw swarmJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
	hostPane := strings.TrimSpace(e.Tmux("list-panes", "-t", sw.Session+":^", "-F", "#{pane_id}"))
	e.WaitPrompts(sw.Host+"/reviewer", 1)
	// Once every member's first turn is over: a runner or hook still
	// writing the state would rebuild it first, and this read would not.
	e.Eventually(60*time.Second, "every member idle", func() bool {
		idle := 0
		for _, it := range e.List(repo) {
			if strings.HasPrefix(it.Name, sw.Host+"/") && it.Status == "idle" {
				idle++
			}
		}
		return idle == 3
	})
	records := e.stateStore("app-*.json").RecordsDir()
	// The rebuild is told on stderr by the command that meets the file
	// first, or in owt's log when a hook or the monitor met it first: the
	// file set aside says it happened. A write under way when the garbage
	// went in replaces it whole (it read the file before): then again.
	var r fixture.Result
	for try := 0; ; try++ {
		e.corruptState("app-*.json", "{garbage")
		r = e.Owt(repo, "swarm", "list", "--json")
		require.Equal(t, 0, r.Code, r.Stderr)
		aside, err := filepath.Glob(filepath.Join(records, "*.corrupt-*"))
		require.NoError(t, err)
		if strings.Contains(r.Stderr, "corrupt") || len(aside) > 0 {
			break
		}
		require.Less(t, try, 5, "the garbage was never met: %s", r.Stderr)
	}
	var list []swarmJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list), r.Stdout)
	require.Len(t, list, 1)
	got := map[string]string{}
	for _, w := range list[0].Workers {
		got[w.Name] = w.Pane
		require.Equal(t, w.Role == "reviewer", w.ReadOnly, w.Name)
	}
	want := map[string]string{}
	for _, w := range sw.Workers {
		want[w.Name] = w.Pane
	}
	require.Equal(t, want, got)
	panes := map[string]any{}
	for _, rec := range e.allRecords() {
		panes[rec["name"].(string)] = rec["pane"]
	}
	require.Equal(t, hostPane, panes[sw.Host], "the worktree's pane is its own")

	e.MustOwt(repo, "swarm", "stop", "--force", sw.Host) // a member may be mid-turn: the rebuild is what is checked here
	require.Len(t, e.List(repo), 1)
}

// Codex's hooks do not name the files of its patches: a Codex tester's
// edits cannot be checked, and owt says so when the swarm starts and
// when it stops, rather than reporting "nothing outside tests".
func TestSwarmTesterOnAToolThatReportsNoEditsIsSaidUnchecked(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "codex", "--no-setup", "--name", "fix", "fix it")
	r := e.Owt(repo, "swarm", "start", "--tool", "codex", "-w", "fix", "--workers", "tester", "test it")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "the tester's edits cannot be checked with codex")
	e.WaitPrompts("fix/tester", 1)
	e.Eventually(60*time.Second, "the tester idle", func() bool { return e.Find(repo, "fix/tester").Status == "idle" })
	r = e.Owt(repo, "swarm", "stop", "fix")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "the tester's edits were not checked (codex's hooks do not name the files it writes)")
	require.NotContains(t, r.Stdout, "NEEDS YOU")
}

// A worker rebuilt from its window after the state file was lost keeps
// its life, as a worktree's record does: else its runner takes it for a
// deleted agent when it exits, and the courier drops its queued mail as
// another agent's.
func TestSwarmWorkersKeepTheirLivesThroughACorruptStateFile(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	out := e.MustOwt(repo, "swarm", "start", "--tool", "claude", "--workers", "implementer,reviewer", "--json", "add a greeting")
	var sw swarmJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
	e.WaitPrompts(sw.Host+"/reviewer", 1)
	e.Eventually(60*time.Second, "every member idle", func() bool {
		idle := 0
		for _, it := range e.List(repo) {
			if strings.HasPrefix(it.Name, sw.Host+"/") && it.Status == "idle" {
				idle++
			}
		}
		return idle == 3
	})
	records := e.stateStore("app-*.json").RecordsDir()
	lives := func() map[string]string {
		out := map[string]string{}
		for _, r := range e.allRecords() {
			life, _ := r["life"].(string)
			out[r["name"].(string)] = life
		}
		return out
	}
	before := lives()
	require.Len(t, before, 4) // the worktree, its coordinator and two workers
	for n, l := range before {
		require.NotEmpty(t, l, n)
	}
	for try := 0; ; try++ {
		e.corruptState("app-*.json", "{garbage")
		r := e.Owt(repo, "swarm", "list", "--json")
		require.Equal(t, 0, r.Code, r.Stderr)
		aside, err := filepath.Glob(filepath.Join(records, "*.corrupt-*"))
		require.NoError(t, err)
		if strings.Contains(r.Stderr, "corrupt") || len(aside) > 0 {
			break
		}
		require.Less(t, try, 5, "the garbage was never met: %s", r.Stderr)
	}
	require.Equal(t, before, lives())
	e.MustOwt(repo, "swarm", "stop", "--force", sw.Host)
}
