package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The switch picker lists every agent of every repo with its glyph, repo,
// branch and tool, the ones that need you first (under the cursor),
// previews the agent's pane, and Enter moves the client that opened it;
// Esc closes it with the client where it was.
func TestSwitchPopupListsAllReposAndSwitchesClient(t *testing.T) {
	e := newQuietEnv(t)
	shop := e.NewRepo("shop")
	blog := e.NewRepo("blog")
	e.MustOwt(blog, "new", "--tool", "claude", "Write the intro post")
	e.MustOwt(shop, "new", "--tool", "claude", "--name", "asker", "Clean up\n!ask rm -rf build")
	e.MustOwt(shop, "new", "--no-agent", "Fix the login redirect")
	intro := e.Find(blog, "write-intro-post")
	e.WaitPrompts("write-intro-post", 1)
	e.Eventually(15*time.Second, "asker needs you", func() bool { return e.Find(shop, "asker").Status == "waiting" })
	client, _ := e.attach("harness")

	// Esc: nothing changes.
	p := e.pane(shop, owtBin, "popup", "switch")
	screen := e.WaitScreen(p, "3/3")
	require.Regexp(t, `○\s+login-redirect\s+shop\s+shell\s+\d+s\s+\+0 -0\s+fix/login`, screen)
	require.Regexp(t, `write-intro-post\s+blog\s+claude\s+\d+s\s+\+\d+ -\d+`, screen)
	require.Regexp(t, `(?m)^> ▲\s+asker\s+shop\s+claude\s`, screen, "the agent that needs you is first, under the cursor")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, "harness", e.ClientSession(client))

	// Type to filter, see the agent's own screen in the preview, Enter.
	p = e.pane(shop, owtBin, "popup", "switch")
	e.WaitScreen(p, "3/3")
	e.typeText(p, "intro")
	e.WaitScreen(p, "1/3")
	require.Contains(t, e.WaitScreen(p, "Welcome to Claude Code"), "── changes ──")
	e.keys(p, "Enter")
	e.Eventually(5*time.Second, "client on the agent's session", func() bool {
		return e.ClientSession(client) == intro.Session
	})

	// Typed ahead, before the picker has drawn: the keys are kept (the
	// terminal's colour query read them away) and the Enter takes the
	// match of the whole name.
	p = e.pane(shop, owtBin, "popup", "switch")
	e.typeText(p, "login")
	e.keys(p, "Enter")
	login := e.Find(shop, "login-redirect")
	e.Eventually(10*time.Second, "client on login-redirect", func() bool { return e.ClientSession(client) == login.Session })
}

// The create form: the task (two lines), a tool, the base branch and plan
// mode; submitting makes the worktree and agent and moves the client there.
// Esc before submitting creates nothing.
func TestCreatePopupMakesAgentAndSwitches(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.Git(repo, "checkout", "-q", "-b", "develop")
	client, _ := e.attach("harness")

	// Esc on the half-filled form: nothing made.
	p := e.pane(repo, owtBin, "popup", "create")
	e.WaitScreen(p, "Task")
	e.typeText(p, "Something I changed my mind about")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Empty(t, e.List(repo))
	require.NotContains(t, e.Git(repo, "branch"), "something")

	p = e.pane(repo, owtBin, "popup", "create")
	screen := e.WaitScreen(p, "Base branch")
	require.Contains(t, screen, "develop", "the base defaults to the branch checked out here")
	require.Contains(t, screen, "claude", "installed tools are offered")
	e.typeText(p, "Add a cart page")
	e.keys(p, "M-Enter")
	e.typeText(p, "with a total; don't $(touch pwned)")
	e.keys(p, "Tab")
	e.waitFocus(p, "Tool") // claude preselected
	e.keys(p, "Down")      // codex
	e.keys(p, "Enter")
	e.waitFocus(p, "Template") // none: the world's OWT_TEMPLATE
	e.keys(p, "Enter")
	e.waitFocus(p, "Base branch")
	e.keys(p, "Enter") // develop
	e.waitFocus(p, "Plan mode?")
	e.keys(p, "Enter") // No: submit
	defer func() {
		if t.Failed() {
			t.Logf("the form's pane:\n%s", e.Capture(p))
		}
	}()
	e.Eventually(15*time.Second, "client on the new session", func() bool {
		return strings.HasPrefix(e.ClientSession(client), "shop/")
	})
	items := e.List(repo)
	require.Len(t, items, 1)
	it := items[0]
	require.Equal(t, "codex", it.Tool)
	require.Equal(t, "develop", it.Base)
	require.Equal(t, "Add a cart page\nwith a total; don't $(touch pwned)", it.Task)
	require.DirExists(t, it.Path)
	require.Equal(t, it.Session, e.ClientSession(client))
	prompts := e.WaitPrompts(it.Name, 1)
	require.Equal(t, it.Task, prompts[0], "the task reaches the agent verbatim")
	require.NoFileExists(t, filepath.Join(repo, "pwned"))
	require.NoFileExists(t, filepath.Join(it.Path, "pwned"))
}

// With @owt-create-switch off the client stays; a failure (an unknown base)
// is shown in the popup, not lost, and nothing is created.
func TestCreatePopupNoSwitchAndErrorsShown(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	client, _ := e.attach("harness")
	e.Tmux("set-option", "-g", "@owt-create-switch", "off")

	// Ctrl-c closes the form like Esc: nothing made.
	p := e.pane(repo, owtBin, "popup", "create")
	e.WaitScreen(p, "Base branch")
	e.typeText(p, "Never mind")
	e.keys(p, "C-c")
	e.waitClosed(p)
	require.Empty(t, e.List(repo))

	p = e.pane(repo, owtBin, "popup", "create")
	e.WaitScreen(p, "Base branch")
	e.typeText(p, "Fix typo in readme")
	e.keys(p, "Enter")
	e.waitFocus(p, "Tool")
	e.keys(p, "Enter")
	e.waitFocus(p, "Template")
	e.keys(p, "Enter")
	e.waitFocus(p, "Base branch")
	e.keys(p, "BSpace", "BSpace", "BSpace", "BSpace") // "main"
	e.typeText(p, "no-such-branch")
	e.keys(p, "Enter")
	e.waitFocus(p, "Plan mode?")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Press any key to close")
	require.Contains(t, screen, `unknown base "no-such-branch"`)
	require.Empty(t, e.List(repo))
	e.keys(p, "Enter")
	e.waitClosed(p)

	p = e.pane(repo, owtBin, "popup", "create")
	e.WaitScreen(p, "Base branch")
	e.typeText(p, "Fix typo in readme")
	for _, next := range []string{"Tool", "Template", "Base branch", "Plan mode?", ""} {
		e.keys(p, "Enter")
		if next != "" {
			e.waitFocus(p, next)
		}
		if next == "Template" {
			e.keys(p, "Down", "Down") // from none, past feature: bugfix
		}
	}
	e.Eventually(15*time.Second, "agent created", func() bool { return len(e.List(repo)) == 1 })
	it := e.List(repo)[0]
	require.Contains(t, e.WaitPrompts(it.Name, 1)[0], "This is a bug fix.", "the template chosen in the form shapes the prompt")
	e.waitClosed(p)
	require.Equal(t, "harness", e.ClientSession(client), "@owt-create-switch off: the client stays")
}

// Delete from inside the worktree's session: what would be lost is shown,
// a first yes is not enough when work would be lost, and Esc or No keeps
// everything. A clean worktree needs one yes.
func TestDeletePopupConfirmsTwiceBeforeLosingWork(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "Fix the login redirect")
	e.MustOwt(repo, "new", "--no-agent", "Tidy the docs")
	dirty := e.Find(repo, "login-redirect")
	clean := e.Find(repo, "tidy-docs")
	e.WriteFile(dirty.Path, "login.go", "package login\n")

	// In the dirty worktree's folder: it is the one offered. Esc: kept.
	p := e.pane(dirty.Path, owtBin, "popup", "delete")
	screen := e.WaitScreen(p, "Delete login-redirect?")
	require.Contains(t, screen, "LOSE 1 uncommitted file(s): login.go")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.DirExists(t, dirty.Path)

	// Yes, then No at the second question: kept.
	p = e.pane(dirty.Path, owtBin, "popup", "delete")
	e.WaitScreen(p, "Delete login-redirect?")
	e.typeText(p, "y")
	e.WaitScreen(p, "Really lose this work?")
	e.typeText(p, "n")
	e.waitClosed(p)
	require.DirExists(t, dirty.Path)
	require.Len(t, e.List(repo), 2)

	// Yes twice: deleted with force.
	p = e.pane(dirty.Path, owtBin, "popup", "delete")
	e.WaitScreen(p, "Delete login-redirect?")
	e.typeText(p, "y")
	e.WaitScreen(p, "Really lose this work?")
	e.typeText(p, "y")
	e.waitClosed(p)
	require.Len(t, e.List(repo), 1)
	require.NoDirExists(t, dirty.Path)
	require.NotContains(t, e.Git(repo, "branch"), "login-redirect")
	require.NotContains(t, e.Sessions(), dirty.Session)

	// A clean worktree, chosen from inside its session: one yes.
	p = e.Tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", clean.Session+":", "-c", e.Root, owtBin, "popup", "delete")
	screen = e.WaitScreen(p, "Delete tidy-docs?")
	require.Contains(t, screen, "Nothing would be lost")
	e.typeText(p, "y")
	e.Eventually(10*time.Second, "clean worktree removed", func() bool { return len(e.List(repo)) == 0 })
}

// Merge shows the check report; Esc changes nothing; yes ships the work
// (commit + merge) and removes the worktree; a predicted conflict is
// refused with nothing changed. Outside a worktree it asks with a picker.
func TestMergePopupReportsThenLands(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.WriteFile(repo, ".env", "SECRET=1\n")
	e.MustOwt(repo, "new", "--no-agent", "Add the cart")
	it := e.Find(repo, "add-cart")
	e.WriteFile(it.Path, "cart.go", "package cart\n")
	e.Git(it.Path, "add", ".")
	e.Git(it.Path, "commit", "-q", "-m", "cart")
	e.WriteFile(it.Path, "wip.txt", "half done\n")
	head := e.Git(repo, "rev-parse", "main")

	// Ctrl-c in the picker: closed, nothing shown or changed.
	p := e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "C-c")
	e.waitClosed(p)

	// The report, then Esc at the confirmation: nothing changed.
	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Commit 1 file(s) and merge feat/add-cart into main?")
	require.Contains(t, screen, "1 ahead, 0 behind main")
	require.Contains(t, screen, "uncommitted: 1 file(s): wip.txt")
	require.Contains(t, screen, "conflicts:   none predicted")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, head, e.Git(repo, "rev-parse", "main"), "nothing merged")
	require.Len(t, e.List(repo), 1)

	// Yes: shipped and torn down; the user's ignored .env is untouched.
	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	e.WaitScreen(p, "Commit 1 file(s)")
	e.typeText(p, "y")
	e.Eventually(15*time.Second, "worktree removed", func() bool { return len(e.List(repo)) == 0 })
	require.NotEqual(t, head, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, "half done", e.Git(repo, "show", "main:wip.txt"))
	require.Equal(t, "package cart", e.Git(repo, "show", "main:cart.go"))
	require.FileExists(t, filepath.Join(repo, ".env"))
	require.NoDirExists(t, it.Path)

	// A predicted conflict: refused, nothing changed.
	e.MustOwt(repo, "new", "--no-agent", "--name", "clash", "Edit the readme")
	c := e.Find(repo, "clash")
	e.WriteFile(c.Path, "README.md", "theirs\n")
	e.Git(c.Path, "commit", "-q", "-am", "theirs")
	e.WriteFile(repo, "README.md", "ours\n")
	e.Git(repo, "commit", "-q", "-am", "ours")
	head = e.Git(repo, "rev-parse", "main")
	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	screen = e.WaitScreen(p, "Press any key to close")
	require.Contains(t, screen, "Merge would be refused")
	require.Contains(t, screen, "README.md")
	e.keys(p, "Enter")
	e.waitClosed(p)
	require.Equal(t, head, e.Git(repo, "rev-parse", "main"))
	require.DirExists(t, c.Path)
}

// The keys bound by owt tmux init open real popups on a real client: Alt+s
// picks and jumps, Alt+c then Esc creates nothing, Alt+m reports, Alt+d
// deletes the worktree the client is in and leaves the client attached,
// on another session.
func TestKeysOpenPopupsOnAClient(t *testing.T) {
	e := newQuietEnv(t)
	shop := e.NewRepo("shop")
	e.MustOwt(shop, "new", "--no-agent", "Fix the login redirect")
	e.MustOwt(shop, "new", "--no-agent", "Tidy the docs")
	login := e.Find(shop, "login-redirect")
	e.MustOwt(shop, "tmux", "init")
	client, tty, screen := e.attachRecorded("harness")
	press := func(keys string) { _, _ = tty.Write([]byte(keys)) }

	press("\x1bs") // Alt+s
	e.waitDrawn(screen, "switch>")
	e.waitDrawn(screen, "2/2")
	press("login")
	// The preview follows the cursor: it shows login-redirect once the
	// filter has left only that row.
	e.waitDrawn(screen, "login-redirect — idle")
	press("\r")
	e.Eventually(5*time.Second, "client on login-redirect", func() bool { return e.ClientSession(client) == login.Session })
	e.waitNoProcess(" switch")

	screen.Reset()
	press("\x1bc") // Alt+c
	e.waitDrawn(screen, "What should the agent do?")
	press("\x1b") // Esc
	e.waitNoProcess(" create")
	require.Len(t, e.List(shop), 2)

	screen.Reset()
	press("\x1bm") // Alt+m: the worktree of this session (nothing to merge)
	e.waitDrawn(screen, "Merge would be refused")
	press("\r")
	e.waitNoProcess(" merge")
	require.Len(t, e.List(shop), 2)

	screen.Reset()
	press("\x1bd") // Alt+d: the worktree of this session
	e.waitDrawn(screen, "Delete login-redirect?")
	press("y")
	e.waitNoProcess(" delete")
	require.Len(t, e.List(shop), 1)
	require.NoDirExists(t, login.Path)
	got := e.ClientSession(client)
	require.NotEmpty(t, got, "the client is still attached")
	require.NotEqual(t, login.Session, got)
}

// Alt+m and Alt+d run the same verbs as owt merge, owt delete and the
// control popup: what they did shows under RECENT in the control popup.
func TestMergeAndDeletePopupsShowInRecent(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart")
	e.MustOwt(repo, "new", "--no-agent", "--name", "docs", "Tidy the docs")
	cart, docs := e.Find(repo, "cart"), e.Find(repo, "docs")
	e.WriteFile(cart.Path, "cart.go", "package cart\n")
	e.Git(cart.Path, "add", ".")
	e.Git(cart.Path, "commit", "-q", "-m", "cart")

	// Alt+m in cart's folder: merged and torn down.
	p := e.pane(cart.Path, owtBin, "popup", "merge")
	e.WaitScreen(p, "Merge feat/cart into main?")
	e.typeText(p, "y")
	e.Eventually(15*time.Second, "cart merged and removed", func() bool { return len(e.List(repo)) == 1 })
	require.Equal(t, "package cart", e.Git(repo, "show", "main:cart.go"))

	// Alt+d in docs' folder: nothing to lose, one yes.
	p = e.pane(docs.Path, owtBin, "popup", "delete")
	e.WaitScreen(p, "Delete docs?")
	e.typeText(p, "y")
	e.Eventually(15*time.Second, "docs deleted", func() bool { return len(e.List(repo)) == 0 })

	p = e.pane(repo, owtBin, "popup", "control")
	var screen string
	e.Eventually(15*time.Second, "both under RECENT", func() bool {
		screen = e.Capture(p)
		return sectionOf(screen, "cart") == "RECENT" && sectionOf(screen, "docs") == "RECENT"
	})
	require.Regexp(t, `merged cart`, screen)
	require.Regexp(t, `deleted docs`, screen)
	e.keys(p, "Escape")
	e.waitClosed(p)
}

// Alt+m in the session of the worktree it lands: the client is moved off
// that session right before the teardown, so it stays attached.
func TestMergeKeyInItsOwnSessionKeepsTheClientAttached(t *testing.T) {
	e := newQuietEnv(t)
	shop := e.NewRepo("shop")
	e.MustOwt(shop, "new", "--no-agent", "--name", "cart", "Add the cart")
	cart := e.Find(shop, "cart")
	e.WriteFile(cart.Path, "cart.go", "package cart\n")
	e.Git(cart.Path, "add", ".")
	e.Git(cart.Path, "commit", "-q", "-m", "cart")
	e.MustOwt(shop, "tmux", "init")
	client, tty, screen := e.attachRecorded(cart.Session)
	press := func(keys string) { _, _ = tty.Write([]byte(keys)) }

	press("\x1bm") // Alt+m: the worktree of this session
	e.waitDrawn(screen, "Merge feat/cart into main?")
	press("y")
	e.waitNoProcess(" merge")
	require.Empty(t, e.List(shop))
	require.Equal(t, "package cart", e.Git(shop, "show", "main:cart.go"))
	got := e.ClientSession(client)
	require.NotEmpty(t, got, "the client is still attached")
	require.NotEqual(t, cart.Session, got)
}
