package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 34, problem 6: Alt+c's traps. Opened in an agent's worktree, the
// form's base was that agent's branch, so the new agent silently based on
// it and merged into it; now it is the main checkout's branch, and the
// agent's own is offered, labelled. A tool that is not installed is
// refused in the form, the typed task kept; before, the create failed
// after the form closed and the task was lost.
func TestCreatePopupInAnAgentsWorktreeBasesOnYourBranchAndRefusesAMissingTool(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.Git(repo, "checkout", "-q", "-b", "develop")
	e.WriteFile(repo, ".owt.toml", "[tools.ghost]\ncommand = [\"ghost-agent\"]\ninstall_hint = \"npm install -g ghost-agent\"\n")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "first", "First task")
	items := e.List(repo)
	require.Len(t, items, 1)
	first := items[0]
	require.Equal(t, "develop", first.Base)

	p := e.pane(first.Path, owtBin, "popup", "create")
	defer func() {
		if t.Failed() {
			t.Logf("the form's pane:\n%s", e.Capture(p))
		}
	}()
	screen := e.WaitScreen(p, "Base branch")
	require.Contains(t, screen, "Default: develop, your checkout's branch", "the base is the main checkout's branch")
	require.Contains(t, screen, "agent first's own branch", "the agent's branch is offered, labelled")
	e.typeText(p, "Add a cart page")
	e.keys(p, "Tab")
	e.waitFocus(p, "Tool")
	e.filterTo(p, "ghost")
	e.WaitScreen(p, "ghost (not installed)") // marked in the list
	e.keys(p, "Enter")
	screen = e.WaitScreen(p, "ghost is not installed")
	require.Contains(t, screen, "npm install -g ghost-agent")
	require.Contains(t, screen, "Add a cart page", "the task is still in the form")
	require.Contains(t, screen, "┃ > ghost (not installed)", "the tool list keeps the focus")
	require.Len(t, e.List(repo), 1, "nothing made")

	e.keys(p, "/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	e.waitLine(p, "┃ /")
	e.typeText(p, "codex")
	e.WaitScreen(p, "┃ > codex")
	e.keys(p, "Enter")
	e.waitFocus(p, "Template")
	e.keys(p, "Enter")
	e.waitFocus(p, "Base branch")
	e.keys(p, "Enter") // develop
	e.waitFocus(p, "Plan mode?")
	e.keys(p, "Enter")
	e.Eventually(15*time.Second, "the second agent", func() bool { return len(e.List(repo)) == 2 })
	for _, it := range e.List(repo) {
		if it.Name == first.Name {
			continue
		}
		require.Equal(t, "develop", it.Base, "based on the user's branch, not on %s", first.Branch)
		require.Equal(t, "codex", it.Tool)
		require.Equal(t, "Add a cart page", strings.TrimSpace(it.Task))
	}
}

// Attack F13: with an in-place agent holding the main checkout (owt
// branch), the main checkout's branch is that agent's: Alt+c, opened
// there or in another agent's worktree, defaulted to it, called "your
// checkout's branch". Now the default is the branch the checkout was on
// before the agent took it, and the agents' branches are offered,
// labelled.
func TestCreatePopupWithAnInPlaceAgentBasesOnYourBranch(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.Git(repo, "checkout", "-q", "-b", "develop")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "wt", "Worktree task")
	e.MustOwt(repo, "branch", "--no-agent", "--no-setup", "--name", "ip", "In place task")
	var wt, ip Item
	for _, it := range e.List(repo) {
		switch it.Name {
		case "wt":
			wt = it
		case "ip":
			ip = it
		}
	}
	require.Equal(t, "develop", ip.Base)
	require.NotEqual(t, "develop", ip.Branch)

	// In another agent's worktree.
	p := e.pane(wt.Path, owtBin, "popup", "create")
	screen := e.WaitScreen(p, "Base branch")
	require.Contains(t, screen, "> develop", "the base is the user's branch, not %s", ip.Branch)
	require.Contains(t, screen, "Default: develop, your branch before ip worked in place.")
	require.NotContains(t, screen, "your checkout's branch")
	e.keys(p, "Escape")

	// In the main checkout, on the in-place agent's branch.
	p = e.pane(repo, owtBin, "popup", "create")
	defer func() {
		if t.Failed() {
			t.Logf("the form's pane:\n%s", e.Capture(p))
		}
	}()
	screen = e.WaitScreen(p, "Base branch")
	require.Contains(t, screen, "> develop", "the base is the user's branch, not %s", ip.Branch)
	require.Contains(t, screen, "Default: develop, your branch before ip worked in place.")
	e.typeText(p, "Add a cart page")
	e.keys(p, "Tab")
	e.waitFocus(p, "Tool")
	e.keys(p, "Enter")
	e.waitFocus(p, "Template")
	e.keys(p, "Enter")
	e.waitFocus(p, "Base branch")
	e.WaitScreen(p, "To build on agent ip's own branch on purpose, type "+ip.Branch) // offered, labelled
	e.keys(p, "Enter")                                                               // develop
	e.waitFocus(p, "Plan mode?")
	e.keys(p, "Enter")
	e.Eventually(15*time.Second, "the third agent", func() bool { return len(e.List(repo)) == 3 })
	for _, it := range e.List(repo) {
		if it.Name != wt.Name && it.Name != ip.Name {
			require.Equal(t, "develop", it.Base, "based on the user's branch, not on %s", ip.Branch)
		}
	}
}

// filterTo opens a select's filter and types text into it.
func (e *Env) filterTo(p, text string) {
	e.t.Helper()
	e.keys(p, "/")
	e.waitLine(p, "┃ /")
	e.typeText(p, text)
}

// waitLine waits for a line of the pane starting with prefix (spaces
// before it ignored).
func (e *Env) waitLine(p, prefix string) {
	e.t.Helper()
	e.Eventually(10*time.Second, "a line "+prefix, func() bool {
		for _, l := range strings.Split(e.Capture(p), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				return true
			}
		}
		return false
	})
}
