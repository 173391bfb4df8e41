package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// resolveRepo is a repo with shared.txt on main, the conflict reaction off
// (owt resolve is what hands the conflict to the agent here).
func (e *Env) resolveRepo(name string) string {
	e.t.Helper()
	repo := e.NewRepo(name)
	e.userConfig("[reactions.conflict]\naction = \"off\"\n")
	e.commitIn(repo, "shared.txt", "one\ntwo\nthree\n", "shared")
	return repo
}

// idleAgent starts a fake claude on script and waits for its first turn
// to end.
func (e *Env) idleAgent(repo, name, script string) Item {
	e.t.Helper()
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", name, "--", script)
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	e.WaitPrompts(name, 1)
	e.Eventually(30*time.Second, name+" idle", func() bool { return e.Find(repo, name).Status == "idle" })
	return it
}

// agentEditsTwo is the agent's side of the conflict: line two of
// shared.txt, committed.
const agentEditsTwo = "Reword line two\n!write shared.txt one\\nagent two\\nthree\n!commit agent rewords two"

// mainMovesUnder commits main's side of the conflict in the user's
// checkout (the setup, before the user's files are fingerprinted).
func (e *Env) mainMovesUnder(repo string) string {
	e.t.Helper()
	return e.commitIn(repo, "shared.txt", "one\nmain two\nthree\n", "main rewords two")
}

// inMerge says a merge is in progress in the worktree at dir.
func inMerge(dir string) bool {
	gitFile, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return false
	}
	gitDir := strings.TrimSpace(strings.TrimPrefix(string(gitFile), "gitdir:"))
	_, err = os.Stat(filepath.Join(gitDir, "MERGE_HEAD"))
	return err == nil
}

// From a conflict predicted after main moved on under an idle agent to
// READY TO SHIP: owt resolve says so when nothing conflicts yet and changes
// nothing; then merges main into the agent's worktree (not committing),
// types the conflicted file and its hunks, quoted, into the agent, which
// resolves and commits; owt resolve --status checks the work (no marker,
// the merge committed, clean against main) and says READY TO SHIP, and the
// control plane lists it there. The user's checkout is byte for byte as it
// was, ignored and untracked files, index and HEAD included.
func TestResolveFromAPredictedConflictToReadyToShip(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.resolveRepo("app")
	it := e.idleAgent(repo, "clash", agentEditsTwo+
		"\n!on-next !write shared.txt one\\nagent two, main two\\nthree\n!on-next !commit merge main, keeping both")
	tip := e.Git(it.Path, "rev-parse", "HEAD")

	// Nothing conflicts yet: said, nothing changed.
	r := e.Owt(repo, "resolve", "clash")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "no conflict predicted")
	require.Equal(t, tip, e.Git(it.Path, "rev-parse", "HEAD"))
	require.False(t, inMerge(it.Path))
	require.Len(t, e.Prompts("clash"), 1, "nothing was typed")

	e.mainMovesUnder(repo)
	e.withUserFiles(repo)
	e.WriteFile(repo, "scratch.txt", "an untracked note of the user's\n")
	before := digest(t, repo)
	mainTip := e.Git(repo, "rev-parse", "main")
	require.Equal(t, []string{"shared.txt"}, e.check(repo, "clash").Conflicts[0].Files)

	r = e.Owt(repo, "resolve", "clash")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "clash: merged main")
	require.Contains(t, r.Stdout, "conflicts left in 1 file(s): shared.txt")
	require.Contains(t, r.Stdout, "its agent has the conflicts")

	msgs := e.WaitPrompts("clash", 2)
	msg := msgs[1]
	require.Contains(t, msg, "owt merged main")
	require.Contains(t, msg, "shared.txt")
	require.Contains(t, msg, "| <<<<<<<")
	require.Contains(t, msg, "| agent two")
	require.Contains(t, msg, "| main two")
	require.Contains(t, msg, "git commit")

	var out string
	e.Eventually(60*time.Second, "owt says clash is ready to ship", func() bool {
		r := e.Owt(repo, "resolve", "clash", "--status")
		out = r.Stdout + r.Stderr
		return r.Code == 0
	})
	require.Contains(t, out, "READY TO SHIP")
	require.False(t, inMerge(it.Path))
	require.Equal(t, "one\nagent two, main two\nthree", e.Git(it.Path, "show", "HEAD:shared.txt"))
	parents := strings.Fields(e.Git(it.Path, "log", "-1", "--format=%P"))
	require.Len(t, parents, 2, "the agent committed the merge")
	require.Equal(t, mainTip, parents[1])
	require.Contains(t, e.Git(it.Path, "log", "-1", "--format=%s"), "merge main, keeping both", "the agent's commit, not owt's")
	require.Empty(t, e.check(repo, "clash").Conflicts)

	// The user's checkout: untouched, byte for byte.
	require.Equal(t, before, digest(t, repo))
	require.Equal(t, mainTip, e.Git(repo, "rev-parse", "main"))
	e.requireUserFiles(repo, "after the resolve")

	require.Regexp(t, `clash .*\(resolved: READY TO SHIP\)`, e.MustOwt(repo, "list"))

	// owt resolve again: checks and says so, starts nothing.
	r = e.Owt(repo, "resolve", "clash")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "READY TO SHIP")
	require.Len(t, e.Prompts("clash"), 2)

	p := e.pane(repo, owtBin, "popup", "control")
	e.Eventually(15*time.Second, "clash under READY TO SHIP", func() bool {
		return sectionOf(e.Capture(p), "clash") == "READY TO SHIP"
	})
	require.Contains(t, e.Capture(p), "resolved by the agent, verified")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, before, digest(t, repo))
}

// A worktree with uncommitted work is refused with the files named, and
// nothing changes there (no merge, no message); an in-place agent works
// in the user's own checkout, which owt never merges into: refused too,
// the checkout byte for byte as it was.
func TestResolveRefusesDirtyWorktreeAndTheUsersCheckout(t *testing.T) {
	e := NewEnv(t)
	repo := e.resolveRepo("app")
	it := e.idleAgent(repo, "dirty", agentEditsTwo)
	e.mainMovesUnder(repo)
	e.WriteFile(it.Path, "wip.txt", "half done\n")
	before, head := digest(t, it.Path), e.Git(it.Path, "rev-parse", "HEAD")
	userBefore := digest(t, repo)

	r := e.Owt(repo, "resolve", "dirty")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stderr, "uncommitted work in 1 file(s): wip.txt")
	require.Contains(t, r.Stderr, "nothing was changed")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(r.Stderr), "\n")+1, "one line: %q", r.Stderr)
	require.Equal(t, before, digest(t, it.Path))
	require.Equal(t, head, e.Git(it.Path, "rev-parse", "HEAD"))
	require.False(t, inMerge(it.Path))
	require.Len(t, e.Prompts("dirty"), 1, "nothing was typed")
	require.Equal(t, userBefore, digest(t, repo))

	r = e.Owt(repo, "resolve")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "resolve takes one NAME")

	mine := e.NewRepo("mine")
	e.commitIn(mine, "shared.txt", "one\ntwo\nthree\n", "shared")
	q, _ := inPlace(t, e, mine, "quick", "Quick fix\n!write shared.txt one\\nquick two\\nthree\n!commit quick")
	e.Eventually(30*time.Second, "quick idle", func() bool { return e.Find(mine, "quick").Status == "idle" })
	mineBefore := digest(t, mine)
	r = e.Owt(mine, "resolve", "quick")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stderr, "works in place, in your own checkout")
	require.Contains(t, r.Stderr, "owt never merges into your checkout")
	require.Equal(t, mineBefore, digest(t, mine))
	require.Equal(t, q.Branch, e.Git(mine, "branch", "--show-current"))
}

// An agent that had exited is started again in its worktree with the
// conflicts as its prompt (its task stays the user's words); until the
// merge is committed owt says it is not finished; an agent that commits
// the merge with the conflict markers still in the file is not shown
// ready, and owt says why (owt resolve again starts nothing new).
func TestResolveRestartsAnExitedAgentAndRefusesMarkers(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.resolveRepo("app")
	it := e.agentDoing(repo, "gone", agentEditsTwo)
	e.mainMovesUnder(repo)
	before := digest(t, repo)

	r := e.Owt(repo, "resolve", "gone")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "its agent had exited: started again there")
	msgs := e.WaitPrompts("gone", 2)
	require.Contains(t, msgs[1], "owt merged main")
	require.Contains(t, msgs[1], "| main two")
	e.Eventually(30*time.Second, "gone idle again", func() bool { return e.Find(repo, "gone").Status == "idle" })
	require.Equal(t, agentEditsTwo+"\n!exit 0", e.Find(repo, "gone").Task, "its task stays the user's words")

	var out string
	e.Eventually(30*time.Second, "owt says the merge is not finished", func() bool {
		r := e.Owt(repo, "resolve", "gone", "--status")
		out = r.Stdout
		return r.Code == 1 && strings.Contains(out, "not ready")
	})
	require.Contains(t, out, "conflicts left unresolved in shared.txt")

	// The agent commits the markers.
	e.MustOwt(repo, "send", "gone", "!commit merge main as it is")
	e.Eventually(30*time.Second, "the markers committed", func() bool { return !inMerge(it.Path) })
	e.Eventually(30*time.Second, "owt says markers are left", func() bool {
		r := e.Owt(repo, "resolve", "gone", "--status")
		out = r.Stdout
		return r.Code == 1 && strings.Contains(out, "conflict markers left in shared.txt, committed")
	})
	r = e.Owt(repo, "resolve", "gone")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stdout, "conflict markers left in shared.txt, committed")
	require.Len(t, e.Prompts("gone"), 3, "nothing new was typed")
	require.Contains(t, e.MustOwt(repo, "list"), "(resolve not ready: conflict markers left in shared.txt, committed")

	p := e.pane(repo, owtBin, "popup", "control")
	e.Eventually(15*time.Second, "gone under NEEDS YOU", func() bool { return sectionOf(e.Capture(p), "gone") == "NEEDS YOU" })
	require.Contains(t, e.Capture(p), "resolve not ready: conflict markers left")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, before, digest(t, repo))
}

// resolvePlan is a run of three tasks writing the same file, one after
// the other, landing in feat/x: a lands; b and c conflict with it. b's
// agent resolves what owt hands it; c's waits on a permission prompt
// first (the test moves feat/x meanwhile), then resolves against the
// feat/x it was given.
func resolvePlan() string {
	script := func(name, then string) string {
		return "!write same.txt from-" + name + "\\n!commit from-" + name + "\\n!exec " + owtBin + " done --summary from-" + name + then
	}
	return `[run]
into = "feat/x"
max_concurrent = 1
tool = "claude"

[[task]]
id = "a"
task = "` + script("a", "") + `"

[[task]]
id = "b"
task = "` + script("b", `\n!on-next !write same.txt from-a and from-b\n!on-next !commit merge feat/x, both kept`) + `"

[[task]]
id = "c"
task = "` + script("c", `\n!on-next !ask echo hold\n!on-next !write same.txt from-a, from-b and from-c\n!on-next !commit merge feat/x, all kept`) + `"
`
}

// A run with [run] on_conflict = "resolve" hands a task's landing
// conflict to its agent, in its worktree, once: b's agent resolves and
// commits, owt verifies it, and b lands. c's resolve is overtaken by a
// conflicting change to feat/x made while its agent waits: its work
// conflicts again, and c needs the user, with owt's reason; nothing of c
// lands and no second resolve starts. The user's checkout is untouched.
func TestRunOnConflictResolveOnceThenNeedsYou(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[reactions.conflict]\naction = \"off\"\n\n[run]\non_conflict = \"resolve\"\n")
	e.withUserFiles(repo)
	e.WriteFile(repo, "clash.toml", resolvePlan())
	before := digest(t, repo)
	e.MustOwt(repo, "run", "start", "clash.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(90*time.Second, "b landed after its agent resolved the conflict", func() bool {
		return e.runTaskStates(repo, "clash")["b"] == "landed"
	})
	require.Equal(t, "from-a and from-b", e.Git(repo, "show", "feat/x:same.txt"))
	require.Contains(t, e.Git(repo, "log", "--format=%s", "feat/x"), "merge feat/x, both kept", "the agent's merge commit landed")
	var resolving []string
	for _, ev := range e.runEvents(repo, "clash") {
		if ev.Event == "resolving" {
			resolving = append(resolving, ev.Task)
		}
	}
	require.Equal(t, []string{"b"}, resolving[:1])

	// c: handed its conflict, its agent waits on a prompt; feat/x moves.
	var cName string
	e.Eventually(90*time.Second, "c's agent resolving, waiting on its prompt", func() bool {
		for _, tk := range e.runStatus(repo, "clash").Tasks {
			if tk.ID == "c" && tk.Name != nil && strings.Contains(tk.Why, "resolves the conflicts with feat/x") {
				cName = *tk.Name
			}
		}
		return cName != "" && e.Find(repo, cName).Status == "waiting"
	})
	side := filepath.Join(e.Root, "side")
	e.Git(repo, "worktree", "add", "-q", side, "feat/x")
	e.commitIn(side, "same.txt", "from-x\n", "feat/x moves on")
	e.Git(repo, "worktree", "remove", side)
	xTip := e.Git(repo, "rev-parse", "feat/x")
	e.MustOwt(repo, "send", "--answer", cName, "1")

	e.Eventually(90*time.Second, "c needs you", func() bool { return e.runTaskStates(repo, "clash")["c"] == "needs_you" })
	why := e.runTaskStates(repo, "clash")["c.why"]
	require.Contains(t, why, "not ready")
	require.Contains(t, why, "conflicts with feat/x again")
	require.Equal(t, xTip, e.Git(repo, "rev-parse", "feat/x"), "nothing of c landed")
	n := 0
	for _, ev := range e.runEvents(repo, "clash") {
		if ev.Event == "resolving" && ev.Task == "c" {
			n++
		}
	}
	require.Equal(t, 1, n, "one resolve for c")
	require.Equal(t, before, digest(t, repo), "the user's checkout is untouched")
}

// Alt+m, refused for a predicted conflict with the base, offers owt
// resolve; the control popup's R asks the same (no: nothing changed), and
// on a resolve under way says how it stands.
func TestResolveOfferedByMergePopupAndControlKey(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.resolveRepo("app")
	it := e.idleAgent(repo, "offer", agentEditsTwo+
		"\n!on-next !write shared.txt one\\nagent two, main two\\nthree\n!on-next !commit merge main")
	e.mainMovesUnder(repo)
	tip := e.Git(it.Path, "rev-parse", "HEAD")
	before := digest(t, repo)

	p := e.pane(repo, owtBin, "popup", "control")
	e.Eventually(15*time.Second, "offer under NEEDS YOU for its conflict", func() bool {
		s := e.Capture(p)
		return sectionOf(s, "offer") == "NEEDS YOU" && strings.Contains(s, "conflicts with main in shared.txt")
	})
	e.selectRow(p, "offer")
	e.typeText(p, "R")
	e.WaitScreen(p, "Let offer resolve its conflicts with main?")
	e.typeText(p, "n")
	e.WaitScreen(p, "nothing was changed")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, tip, e.Git(it.Path, "rev-parse", "HEAD"))
	require.False(t, inMerge(it.Path))
	require.Len(t, e.Prompts("offer"), 1)

	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Let the agent resolve the conflicts with main in its worktree?")
	require.Contains(t, screen, "Merge would be refused")
	require.Contains(t, screen, "conflicts with main in shared.txt")
	e.typeText(p, "y")
	screen = e.WaitScreen(p, "Press any key to close")
	require.Contains(t, screen, "offer: merged main into")
	e.keys(p, "Enter")
	e.waitClosed(p)

	e.Eventually(60*time.Second, "offer ready to ship", func() bool { return e.Owt(repo, "resolve", "offer", "--status").Code == 0 })
	p = e.pane(repo, owtBin, "popup", "control")
	e.Eventually(15*time.Second, "offer under READY TO SHIP", func() bool { return sectionOf(e.Capture(p), "offer") == "READY TO SHIP" })
	e.selectRow(p, "offer")
	e.typeText(p, "R")
	e.WaitScreen(p, "offer: READY TO SHIP")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Len(t, e.Prompts("offer"), 2)
	require.Equal(t, before, digest(t, repo))
}

// An agent that "resolves" by keeping its own version of every conflicted
// file (what 'git merge -s ours' or 'git checkout --ours' do) leaves no
// marker and merges cleanly into main, yet landing it would undo main's
// change: owt says not ready, naming the file, never READY TO SHIP.
func TestResolveKeepingOnlyTheBranchsSideIsNotReady(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.resolveRepo("app")
	it := e.idleAgent(repo, "mine", agentEditsTwo+
		"\n!on-next !write shared.txt one\\nagent two\\nthree\n!on-next !commit merge main, keeping mine")
	e.mainMovesUnder(repo)

	r := e.Owt(repo, "resolve", "mine")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.WaitPrompts("mine", 2)
	var out string
	e.Eventually(60*time.Second, "owt says the merge drops main's change", func() bool {
		r := e.Owt(repo, "resolve", "mine", "--status")
		out = r.Stdout
		return r.Code == 1 && strings.Contains(out, "drops main's changes to shared.txt")
	})
	require.NotContains(t, out, "READY TO SHIP")
	require.False(t, inMerge(it.Path))
	require.Len(t, strings.Fields(e.Git(it.Path, "log", "-1", "--format=%P")), 2, "the agent committed the merge")
	require.Empty(t, e.check(repo, "mine").Conflicts, "merge-tree alone sees nothing wrong")
	require.Contains(t, e.MustOwt(repo, "list"), "(resolve not ready: its merge drops main's changes to shared.txt")
}
