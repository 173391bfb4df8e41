package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// Remote agents in every face that brings work home (ship, check, queue,
// pr) and in the pickers and the control popup.

// hostileTexts are user text that is shell on a command line: each must
// arrive as typed and run nothing on either machine.
func hostileTexts(marker string) []string {
	return []string{
		"$(touch " + marker + ")",
		"`touch " + marker + "`; touch " + marker + " && echo 'single' \"double\" \\ back",
		"-rf --force first line\nsecond line; touch " + marker + "\n$HOME ${IFS} ~ * | > " + marker,
	}
}

func requireNoMarker(t *testing.T, marker string) {
	t.Helper()
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "user text ran a command: %s exists", marker)
}

// runOnHost runs a shell script as the host's user, failing the test on error.
func runOnHost(t *testing.T, h *fixture.SSHHost, script string) string {
	t.Helper()
	out, err := h.Run(script)
	require.NoError(t, err, out)
	return out
}

// remoteAgent starts an agent on the host and waits until it is idle,
// returning its worktree there and its branch.
func (e *Env) remoteAgent(repo, name, task string) (wt, branch string) {
	e.t.Helper()
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", name, "--", task)
	require.Equal(e.t, name+": idle\n", e.MustOwt(repo, "wait", name+"@box", "--until", "idle", "--timeout", "30s"))
	items, _ := e.hostList(repo)
	for _, it := range items {
		if it.Name == name && it.Host == "box" {
			return it.Path, it.Branch
		}
	}
	e.t.Fatalf("no %s@box in owt list", name)
	return "", ""
}

// remoteReport is the part of owt check --json these tests read.
type remoteReport struct {
	Name       string
	Ahead      int
	DirtyFiles []string `json:"dirty_files"`
	Overlaps   []struct {
		With  string
		Files []string
	}
	Conflicts []struct {
		With, Kind string
		Files      []string
	}
}

// owt check NAME@HOST runs the check where the worktree is: the host's
// uncommitted files, its overlaps with the other agents there, the
// conflicts predicted with its base there. owt ship NAME@HOST commits
// there (the message on stdin, as typed), brings the branch home, merges
// it and deletes the agent there; refused, changing nothing anywhere,
// without a yes, while a conflict is predicted, and for an unknown name.
func TestShipAndCheckOfARemoteAgent(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	marker := filepath.Join(os.TempDir(), "owt-pwned-ship-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })

	wt, branch := e.remoteAgent(repo, "far", "the task")
	owt, _ := e.remoteAgent(repo, "other", "another task")
	runOnHost(t, h, "cd '"+wt+"' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature' && echo wip > wip.txt")
	runOnHost(t, h, "cd '"+owt+"' && echo theirs > wip.txt")

	var rep remoteReport
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "check", "far@box", "--json")), &rep))
	require.Equal(t, 1, rep.Ahead)
	require.Equal(t, []string{"wip.txt"}, rep.DirtyFiles, "the host's uncommitted files")
	require.Len(t, rep.Overlaps, 1, "the overlap with the other agent there")
	require.Equal(t, "other", rep.Overlaps[0].With)
	require.Equal(t, []string{"wip.txt"}, rep.Overlaps[0].Files)
	text := e.MustOwt(repo, "check", "far")
	require.Contains(t, text, "wip.txt")
	require.Contains(t, text, "other")

	for _, bad := range []string{"nobody@box", "$(touch " + marker + ")@box", "-rf@box"} {
		r := e.Owt(repo, "check", "--", bad)
		require.NotEqual(t, 0, r.Code, bad)
		requireOneLineError(t, r, "")
	}
	r := e.Owt(repo, "check", "far@nohost")
	requireOneLineError(t, r, "no such host")
	require.Equal(t, 2, r.Code)

	main := e.Git(repo, "rev-parse", "main")
	// On a terminal, ship and merge show the host's report first, then ask.
	for _, verb := range []string{"ship", "merge"} {
		p := e.pane(repo, owtBin, verb, "far@box")
		e.Tmux("set-option", "-w", "-t", p, "remain-on-exit", "on") // its last words stay readable
		screen := e.WaitScreen(p, "[y/N]")
		require.Contains(t, screen, "far@box ("+branch+" → main)", verb)
		require.Contains(t, screen, "uncommitted: 1 file(s): wip.txt", verb)
		require.Contains(t, screen, "other", verb+": the overlap with the other agent")
		e.typeText(p, "n")
		e.keys(p, "Enter")
		e.WaitScreen(p, "not "+map[string]string{"ship": "shipped", "merge": "merged"}[verb])
		e.Tmux("kill-pane", "-t", p)
	}
	// No terminal to ask on and no --yes: nothing anywhere changes.
	r = e.Owt(repo, "ship", "far@box")
	requireOneLineError(t, r, "--yes")
	require.Equal(t, 2, r.Code)
	require.Equal(t, "wip.txt", runOnHost(t, h, "cd '"+wt+"' && git status --porcelain | cut -c4-"), "nothing committed there")
	require.Equal(t, main, e.Git(repo, "rev-parse", "main"))
	r = e.Owt(repo, "ship", "nobody@box", "--yes")
	requireOneLineError(t, r, "nobody")
	require.Equal(t, 3, r.Code)

	// A conflict with its base there is predicted: refused before any commit.
	runOnHost(t, h, "cd '"+clone+"' && echo mine > feature.txt && git add feature.txt && git commit -qm 'main side'")
	r = e.Owt(repo, "ship", "far@box", "--yes")
	requireOneLineError(t, r, "conflicts")
	require.Contains(t, r.Stderr, "nothing was committed")
	require.Equal(t, "wip.txt", runOnHost(t, h, "cd '"+wt+"' && git status --porcelain | cut -c4-"), "nothing committed there")
	require.Equal(t, main, e.Git(repo, "rev-parse", "main"))
	require.Empty(t, e.Git(repo, "branch", "--list", branch), "nothing fetched")
	runOnHost(t, h, "cd '"+clone+"' && git reset -q --hard HEAD~1")

	msg := hostileTexts(marker)[2]
	out := e.MustOwt(repo, "ship", "far@box", "--yes", "-m", msg)
	require.Contains(t, out, "committed 1 file(s) in far")
	require.Contains(t, out, "merged "+branch+" into main")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	require.Equal(t, "wip", strings.TrimSpace(e.Git(repo, "show", "main:wip.txt")))
	subjects := e.Git(repo, "log", "--format=%B%x00", "main")
	require.Contains(t, subjects, strings.TrimSpace(msg), "the message as typed")
	require.Empty(t, e.Git(repo, "branch", "--list", branch), "the fetched branch is merged and gone")
	e.Eventually(15*time.Second, "far gone on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 1 && items[0].Name == "other"
	})
	requireNoMarker(t, marker)
}

// owt queue lists the hosts' finished agents after the local ones, as
// NAME@HOST, each predicted there; --ship ships every one, local first.
func TestQueueShipsRemoteAgentsToo(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)

	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	e.MustOwt(repo, "wait", "here", "--until", "idle", "--timeout", "30s")
	var here hostItem
	items, _ := e.hostList(repo)
	for _, it := range items {
		if it.Name == "here" {
			here = it
		}
	}
	e.WriteFile(here.Path, "l.txt", "local\n")
	e.Git(here.Path, "add", "l.txt")
	e.Git(here.Path, "commit", "-qm", "local work")

	a, _ := e.remoteAgent(repo, "qa", "task a")
	b, _ := e.remoteAgent(repo, "qb", "task b")
	e.remoteAgent(repo, "idle", "no changes")
	runOnHost(t, h, "cd '"+a+"' && echo a > a.txt && git add a.txt && git commit -qm 'a'")
	runOnHost(t, h, "cd '"+b+"' && echo b > b.txt") // uncommitted: ship commits it there

	var q struct {
		Queue []struct {
			Name, Host string
			Clean      bool
		}
		Skipped []struct{ Name, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "queue", "--json")), &q))
	var names []string
	for _, en := range q.Queue {
		names = append(names, en.Name+"@"+en.Host)
		require.True(t, en.Clean, en.Name)
	}
	require.Equal(t, []string{"here@", "qa@box", "qb@box"}, names)
	skipped := map[string]string{}
	for _, s := range q.Skipped {
		skipped[s.Name] = s.Reason
	}
	require.Equal(t, "no changes", skipped["idle@box"])
	table := e.MustOwt(repo, "queue")
	require.Contains(t, table, "qa@box")
	require.Contains(t, table, "qb@box")

	r := e.Owt(repo, "queue", "--ship")
	requireOneLineError(t, r, "--yes")
	require.Equal(t, 2, r.Code)

	out := e.MustOwt(repo, "queue", "--ship", "--yes")
	require.Contains(t, out, "shipped 3 worktree(s)")
	for _, f := range []string{"l.txt", "a.txt", "b.txt"} {
		e.Git(repo, "cat-file", "-e", "main:"+f)
	}
	items, _ = e.hostList(repo)
	left := []string{}
	for _, it := range items {
		left = append(left, it.Name+"@"+it.Host)
	}
	require.Equal(t, []string{"idle@box"}, left, "the shipped ones are gone, here and there")

	// A host that cannot be asked is said so, never taken for empty.
	h.Stop()
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "queue", "--json")), &q))
	found := false
	for _, s := range q.Skipped {
		found = found || (s.Name == "@box" && strings.Contains(s.Reason, "unreachable"))
	}
	require.True(t, found, "%+v", q.Skipped)
}

// owt pr NAME@HOST pushes from where the branch is, the host, and opens
// the pull request there (its gh); nothing is pushed from here.
func TestPROfARemoteAgentPushesFromTheHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	ghDir := h.UseFakeGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: "[]"}, createFixture)
	clone := addHostWithRepo(e, h, repo)
	origin := filepath.Join(h.Home, "origin.git")
	e.Git(e.Root, "clone", "-q", "--bare", repo, origin)
	out, err := exec.Command("chown", "-R", h.User+":", origin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	gitAs(t, h, clone, "remote", "set-url", "origin", origin)

	wt, branch := e.remoteAgent(repo, "far", "the task")
	runOnHost(t, h, "cd '"+wt+"' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	tip := runOnHost(t, h, "cd '"+wt+"' && git rev-parse HEAD")

	out2 := e.MustOwt(repo, "pr", "far@box")
	require.Contains(t, out2, "opened pull request #7 for far")
	require.Equal(t, tip, gitAs(t, h, origin, "rev-parse", "refs/heads/"+branch), "pushed from the host")
	require.Empty(t, e.Git(repo, "branch", "--list", branch), "nothing of it here")
	calls, err := os.ReadFile(filepath.Join(ghDir, "calls.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(calls), `"pr","create"`)

	r := e.Owt(repo, "pr", "nobody@box")
	requireOneLineError(t, r, "nobody")
	require.NotEqual(t, 0, r.Code)
	marker := filepath.Join(os.TempDir(), "owt-pwned-pr-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })
	for _, bad := range []string{"$(touch " + marker + ")@box", "`touch " + marker + "`;x@box", "-rf@box"} {
		r := e.Owt(repo, "pr", "--", bad)
		requireOneLineError(t, r, "")
		require.NotEqual(t, 0, r.Code, bad)
	}
	requireNoMarker(t, marker)
	calls, err = os.ReadFile(filepath.Join(ghDir, "calls.jsonl"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(calls), `"pr","create"`), "a bad name opened nothing there")
}

// Alt+m and Alt+d pick among the hosts' agents too (NAME@HOST, from their
// streams): Alt+m shows the host's report and ships the work home after
// a yes (Esc changes nothing); Alt+d asks twice before losing work there
// (No keeps it), then deletes it on the host.
func TestMergeAndDeletePickersActOnRemoteAgents(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	wt, branch := e.remoteAgent(repo, "far", "the far task")
	gone, _ := e.remoteAgent(repo, "gone", "to be deleted")
	runOnHost(t, h, "cd '"+wt+"' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature' && echo wip > wip.txt")
	runOnHost(t, h, "cd '"+gone+"' && echo x > x.txt")
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.Eventually(20*time.Second, "both remote agents idle in the bar", func() bool { return strings.Contains(bar(), "○ 2") })
	main := e.Git(repo, "rev-parse", "main")

	// Alt+m: the report of far@box, made there; Esc: nothing changed.
	p := e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "2/2")
	e.typeText(p, "far@")
	e.WaitScreen(p, "1/2")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Commit 1 file(s) and merge "+branch+" into main?")
	require.Contains(t, screen, "far@box ("+branch+" → main)")
	require.Contains(t, screen, "uncommitted: 1 file(s): wip.txt")
	require.Contains(t, screen, "comes home from box")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, main, e.Git(repo, "rev-parse", "main"), "nothing merged")
	require.Equal(t, "wip.txt", runOnHost(t, h, "cd '"+wt+"' && git status --porcelain | cut -c4-"), "nothing committed there")

	// Yes: committed there, brought home, merged, deleted there.
	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "2/2")
	e.typeText(p, "far@")
	e.WaitScreen(p, "1/2")
	e.keys(p, "Enter")
	e.WaitScreen(p, "Commit 1 file(s)")
	e.typeText(p, "y")
	e.Eventually(20*time.Second, "far merged", func() bool {
		out, _ := exec.Command("git", "-C", repo, "show", "main:wip.txt").Output()
		return strings.TrimSpace(string(out)) == "wip"
	})
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	e.Eventually(15*time.Second, "far gone on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 1 && items[0].Name == "gone"
	})

	// owt delete --dry-run says what it would lose there, and deletes nothing.
	out := e.MustOwt(repo, "delete", "gone@box", "--dry-run")
	require.Contains(t, out, "would delete gone")
	require.Contains(t, out, "LOSE 1 uncommitted file(s): x.txt")
	r := e.Owt(repo, "delete", "gone@box", "--yes")
	requireOneLineError(t, r, "--force")
	require.DirExists(t, gone)

	// Alt+d: it would lose x.txt there: asked twice; No keeps it.
	p = e.pane(repo, owtBin, "popup", "delete")
	e.typeText(p, "gone@")
	e.WaitScreen(p, "gone@box")
	e.keys(p, "Enter")
	screen = e.WaitScreen(p, "Delete gone@box?")
	require.Contains(t, screen, "On box, session")
	require.Contains(t, screen, "LOSE 1 uncommitted file(s): x.txt")
	e.typeText(p, "y")
	e.WaitScreen(p, "Really lose this work?")
	e.typeText(p, "n")
	e.waitClosed(p)
	require.DirExists(t, gone)

	p = e.pane(repo, owtBin, "popup", "delete")
	e.typeText(p, "gone@")
	e.WaitScreen(p, "gone@box")
	e.keys(p, "Enter")
	e.WaitScreen(p, "Delete gone@box?")
	e.typeText(p, "y")
	e.WaitScreen(p, "Really lose this work?")
	e.typeText(p, "y")
	e.Eventually(20*time.Second, "gone deleted on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 0
	})
	require.NoDirExists(t, gone)
}

// owt wait waits on agents here and on hosts together (NAME, NAME@HOST,
// or a NAME only a host has), and --all on every agent of the repository
// here and on its hosts; an agent of a host that does not answer is
// reported unreachable with its last status, never exited.
func TestWaitAcrossHosts(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	marker := filepath.Join(os.TempDir(), "owt-pwned-wait-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a far task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far2", "another far task")

	out := e.MustOwt(repo, "wait", "here", "far@box", "far2", "--until", "idle", "--timeout", "30s")
	require.Equal(t, "here: idle\nfar@box: idle\nfar2@box: idle\n", out)

	var res []struct {
		Name, Status, Host string
		Reached            bool
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "wait", "--all", "--until", "idle", "--timeout", "30s", "--json")), &res))
	got := map[string]string{}
	for _, r := range res {
		require.True(t, r.Reached, r.Name)
		got[r.Name] = r.Host
	}
	require.Equal(t, map[string]string{"here": "", "far@box": "box", "far2@box": "box"}, got)

	// Not yet there: the timeout says where each stands.
	r := e.Owt(repo, "wait", "here", "far@box", "--until", "exited", "--timeout", "2s")
	requireOneLineError(t, r, "not exited: here is idle, far@box is idle")
	require.Equal(t, 1, r.Code)

	for _, bad := range [][]string{
		{"wait", "here", "nobody@box"},
		{"wait", "here", "$(touch " + marker + ")@box"},
		{"wait", "here", "--", "-rf@box"},
	} {
		r := e.Owt(repo, bad...)
		requireOneLineError(t, r, "")
		require.Equal(t, 3, r.Code, "%v: %s", bad, r.Stderr)
	}
	r = e.Owt(repo, "wait", "here", "far@nohost")
	requireOneLineError(t, r, "no such host")
	require.Equal(t, 2, r.Code)
	r = e.Owt(repo, "wait", "--all", "here")
	requireOneLineError(t, r, "not both")
	require.Equal(t, 2, r.Code)
	requireNoMarker(t, marker)

	// The host goes away: its agents are unreachable, last idle; not exited.
	h.Stop()
	e.Eventually(45*time.Second, "far@box unreachable in owt wait", func() bool {
		r = e.Owt(repo, "wait", "here", "far@box", "--until", "idle", "--timeout", "2s")
		return r.Code == 1
	})
	requireOneLineError(t, r, "far@box is unreachable (host box; last idle)")
	require.NotContains(t, r.Stderr, "exited")
	require.Equal(t, "here: idle\n", r.Stdout)
	r = e.Owt(repo, "wait", "--all", "--until", "any", "--timeout", "2s", "--json")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	for _, x := range res {
		if x.Host == "box" {
			require.Equal(t, "idle", x.Status, "the last known status")
			require.False(t, x.Reached)
		}
	}
	require.Contains(t, r.Stderr, "unreachable")

	h.Start()
	e.Eventually(45*time.Second, "far@box back", func() bool {
		return e.Owt(repo, "wait", "here", "far@box", "--until", "idle", "--timeout", "5s").Code == 0
	})
}

// owt new --host --dry-run says what it would do there and changes
// nothing anywhere; --switch attaches to the new remote agent in a window
// (as Alt+s does); --issue reads the issue here through gh and sends its
// text as the task on stdin; --in-place is refused in one line. Hostile
// text runs nothing on either machine.
func TestNewOnHostDryRunSwitchIssueInPlace(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	marker := filepath.Join(os.TempDir(), "owt-pwned-new-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })
	nothingThere := func(what string) {
		t.Helper()
		items, _ := e.hostList(repo)
		require.Empty(t, items, what+": an agent was made")
		require.Empty(t, gitAs(t, h, clone, "for-each-ref", "refs/owt/"), what+": a base commit was sent")
		requireNoMarker(t, marker)
	}

	r := e.Owt(repo, "new", "--host", "box", "--in-place", "a task")
	requireOneLineError(t, r, "--in-place")
	require.Equal(t, 2, r.Code)
	r = e.Owt(repo, "new", "--host", "box", "--dry-run", "--switch", "a task")
	requireOneLineError(t, r, "--dry-run")
	require.Equal(t, 2, r.Code)
	nothingThere("refused")

	for i, task := range hostileTexts(marker) {
		out := e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--template", "none", "--name", "dry", "--dry-run", "--", task)
		require.Contains(t, out, "nothing was created or sent, here or on box", i)
		require.Contains(t, out, "would send main ("+e.Git(repo, "rev-parse", "main")[:12]+") to box:~/src/app", i)
		require.Contains(t, out, "name dry, branch ", i)
		require.Contains(t, out, "--- first prompt ---\n"+task, i)
	}
	var dry struct {
		Host, Base string
		Preview    struct{ Name, Prompt string }
	}
	task := hostileTexts(marker)[0]
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--template", "none", "--name", "dry", "--dry-run", "--json", "--", task)), &dry))
	require.Equal(t, "box", dry.Host)
	require.Equal(t, "main", dry.Base)
	require.Equal(t, "dry", dry.Preview.Name)
	require.Equal(t, task, dry.Preview.Prompt)
	nothingThere("--dry-run")

	// --issue: read here (the fake gh), its text the task there.
	body := "Steps: $(touch " + marker + ") and `touch " + marker + "`; 'q' \"dq\"\n-rf --force"
	view, err := json.Marshal(map[string]any{"title": "Login crashes; $(touch " + marker + ")", "body": body, "comments": []any{}})
	require.NoError(t, err)
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view", "12"}, Stdout: string(view)})
	r = e.Owt(repo, "new", "--host", "box", "--issue", "12", "more text")
	requireOneLineError(t, r, "--issue 12 is the task")
	require.Equal(t, 2, r.Code)
	r = e.Owt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--issue", "13")
	requireOneLineError(t, r, "issue 13")
	nothingThere("an issue gh does not have")

	out := e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--issue", "12")
	require.Contains(t, out, "issue-12: claude on issue-12-")
	require.Contains(t, out, "on host box")
	prompts := waitHostPrompts(e, h, "issue-12", 1)
	require.True(t, strings.HasPrefix(prompts[0], "GitHub issue #12: Login crashes; $(touch "+marker+")\n\n"+body), prompts[0])
	require.Empty(t, e.Prompts("issue-12"), "nothing ran here")
	require.Len(t, e.GhCalls("issue", "view", "12"), 1, "read here, once")
	var issued []struct {
		Name  string
		Issue int
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "list", "--json")), &issued))
	require.Len(t, issued, 1)
	require.Equal(t, 12, issued[0].Issue, "recorded there, so owt pr there closes it")
	requireNoMarker(t, marker)

	// --switch inside tmux: a window attached to it over ssh.
	pane := e.Tmux("display-message", "-p", "-t", "harness", "#{pane_id}")
	inside := []string{"TMUX=" + e.Socket + ",1,0", "TMUX_PANE=" + pane}
	r = e.OwtIn(repo, inside, "", "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "sw", "--switch", "a task to watch")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "sw: claude on ")
	require.Contains(t, r.Stdout, "sw@box: in window %")
	var win string
	for _, l := range strings.Split(e.Tmux("list-windows", "-t", "harness", "-F", "#{window_name} #{pane_id}"), "\n") {
		if strings.HasPrefix(l, "sw@box ") {
			win = strings.TrimPrefix(l, "sw@box ")
		}
	}
	require.NotEmpty(t, win, "no window sw@box")
	e.WaitScreen(win, "Welcome to Claude Code")
	require.Equal(t, []string{"a task to watch"}, waitHostPrompts(e, h, "sw", 1))
}
