package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sectionOrder is the section headers on a control popup screen, in order.
func sectionOrder(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if m := regexp.MustCompile(`^(NEEDS YOU|READY TO SHIP|IN FLIGHT|QUEUED|RECENT) \(\d+\)`).FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// sectionOf is the section the row naming name is listed under.
func sectionOf(screen, name string) string {
	cur := ""
	for _, l := range strings.Split(screen, "\n") {
		if m := regexp.MustCompile(`^(NEEDS YOU|READY TO SHIP|IN FLIGHT|QUEUED|RECENT) \(\d+\)`).FindStringSubmatch(l); m != nil {
			cur = m[1]
			continue
		}
		if regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(name) + `(\s|$)`).MatchString(l) {
			return cur
		}
	}
	return ""
}

// cursorAt is the selected row of the control popup ("> …") and its line
// number on the screen (-1 when none is drawn).
func cursorAt(screen string) (string, int) {
	for i, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "> ") {
			return l, i
		}
	}
	return "", -1
}

// selectRow moves the popup's cursor to the row naming name: g to the top
// (the line under the first section's header), then j, each time waiting
// to see the cursor go down, as a person does.
func (e *Env) selectRow(p, name string) {
	e.t.Helper()
	e.keys(p, "g")
	e.Eventually(15*time.Second, "the cursor at the top", func() bool { _, at := cursorAt(e.Capture(p)); return at == 2 })
	for i := 0; i < 30; i++ {
		line, at := cursorAt(e.Capture(p))
		if regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `\s`).MatchString(line) {
			return
		}
		e.keys(p, "j")
		deadline := time.Now().Add(5 * time.Second)
		for _, now := cursorAt(e.Capture(p)); now <= at; _, now = cursorAt(e.Capture(p)) {
			if time.Now().After(deadline) {
				e.t.Fatalf("the cursor did not move down from %q; screen:\n%s", line, e.Capture(p))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	e.t.Fatalf("no row %s; screen:\n%s", name, e.Capture(p))
}

// The control popup sorts a mix of agents and run tasks into its sections
// (waiting → NEEDS YOU, idle with commits → READY TO SHIP, working → IN
// FLIGHT, a task waiting for its parent → QUEUED); Esc changes nothing;
// Enter moves the client to the agent; i delivers a message like owt send;
// d shows the diff of a file the agent changed; x on uncommitted work asks
// twice; s ships a ready row, which then shows under RECENT.
func TestControlPopupSectionsAndVerbs(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "asker", "Clean up\n!ask rm -rf build")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "busy", "Refactor\n!sleep 600s")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "idler", "Say hello")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart")
	e.MustOwt(repo, "new", "--no-agent", "--name", "docs", "Tidy the docs")
	cart, docs := e.Find(repo, "cart"), e.Find(repo, "docs")
	e.WriteFile(cart.Path, "cart.go", "package cart\n")
	e.Git(cart.Path, "add", ".")
	e.Git(cart.Path, "commit", "-q", "-m", "cart")
	e.WriteFile(docs.Path, "notes.txt", "draft\n")
	e.WriteFile(repo, "g.toml", `[run]
max_concurrent = 1
tool = "claude"

[[task]]
id = "models"
task = "Models\n!sleep 600s"

[[task]]
id = "api"
task = "The API"
depends_on = ["models"]
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(15*time.Second, "asker needs you", func() bool { return e.Find(repo, "asker").Status == "waiting" })
	e.WaitPrompts("idler", 1)
	e.Eventually(15*time.Second, "idler idle", func() bool { return e.Find(repo, "idler").Status == "idle" })
	e.Eventually(30*time.Second, "the run started models", func() bool {
		for _, it := range e.List(repo) {
			if strings.Contains(it.Name, "models") && it.Status == "working" {
				return true
			}
		}
		return false
	})
	client, _ := e.attach("harness")
	head := e.Git(repo, "rev-parse", "main")

	p := e.pane(repo, owtBin, "popup", "control")
	var screen string
	e.Eventually(15*time.Second, "every section in order", func() bool {
		screen = e.Capture(p)
		return strings.Join(sectionOrder(screen), ",") == "NEEDS YOU,READY TO SHIP,IN FLIGHT,QUEUED,RECENT" &&
			sectionOf(screen, "cart") == "READY TO SHIP" && sectionOf(screen, "docs") == "READY TO SHIP"
	})
	require.Equal(t, "NEEDS YOU", sectionOf(screen, "asker"), screen)
	require.Regexp(t, `asker\s+waiting .*permission`, screen)
	require.Equal(t, "IN FLIGHT", sectionOf(screen, "busy"), screen)
	require.Equal(t, "IN FLIGHT", sectionOf(screen, "idler"), screen)
	require.Equal(t, "QUEUED", sectionOf(screen, "g/api"), screen)
	require.Contains(t, screen, "waits for models")
	require.Contains(t, screen, "run g: 0/2 done")
	require.Contains(t, screen, "owt control — shop")

	// Esc: closed, nothing changed.
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Len(t, e.List(repo), 6)
	require.Equal(t, head, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, "harness", e.ClientSession(client))

	// d: the files cart changed, then one file's diff.
	p = e.pane(repo, owtBin, "popup", "control")
	e.WaitScreen(p, "READY TO SHIP")
	e.selectRow(p, "cart")
	e.keys(p, "d")
	require.Regexp(t, `cart\.go\s+\+1 -0`, e.WaitScreen(p, "cart.go"))
	e.keys(p, "Enter")
	require.Contains(t, e.WaitScreen(p, "+package cart"), "cart.go (1/1)")
	e.keys(p, "Escape")
	// One Esc at a time: two at once read as Alt+Esc.
	e.Eventually(10*time.Second, "back at the file list", func() bool {
		return !strings.Contains(e.Capture(p), "(1/1)")
	})
	e.keys(p, "Escape")
	e.WaitScreen(p, "READY TO SHIP")

	// i: a message delivered to the agent, as owt send delivers it.
	e.selectRow(p, "idler")
	e.typeText(p, "i")
	e.WaitScreen(p, "message to idler")
	e.typeText(p, "please add tests")
	e.keys(p, "Enter")
	e.WaitScreen(p, "sent to idler")
	require.Equal(t, "please add tests", e.WaitPrompts("idler", 2)[1])

	// x on uncommitted work: asked twice; no at the second keeps it.
	e.selectRow(p, "docs")
	e.typeText(p, "x")
	require.Contains(t, e.WaitScreen(p, "Delete docs?"), "LOSE 1 uncommitted file(s): notes.txt")
	e.typeText(p, "y")
	e.WaitScreen(p, "Really lose this work?")
	e.typeText(p, "n")
	e.WaitScreen(p, "nothing was changed")
	require.DirExists(t, docs.Path)

	// s on a ready row: the check report, yes, shipped; the row moves to RECENT.
	e.selectRow(p, "cart")
	e.typeText(p, "s")
	screen = e.WaitScreen(p, "Commit everything in cart")
	require.Contains(t, screen, "1 ahead, 0 behind main")
	e.typeText(p, "y")
	e.Eventually(20*time.Second, "cart under RECENT", func() bool {
		screen = e.Capture(p)
		return sectionOf(screen, "cart") == "RECENT"
	})
	require.Regexp(t, `shipped cart`, screen)
	require.Equal(t, "package cart", e.Git(repo, "show", "main:cart.go"))
	require.NoDirExists(t, cart.Path)

	// Enter: the client goes to the agent, the popup closes.
	e.selectRow(p, "busy")
	e.keys(p, "Enter")
	e.waitClosed(p)
	require.Equal(t, e.Find(repo, "busy").Session, e.ClientSession(client))
	require.FileExists(t, filepath.Join(docs.Path, "notes.txt"))
}

// The control popup fits 80x24 and 250x60 (header on top, keys at the
// foot, rows cut to the width), draws no colour under NO_COLOR, opens on a
// real client with Alt+o, and owt diff NAME --stat lists what a worktree
// changed.
func TestControlPopupSizesColourKeyAndDiffStat(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart with a long description that runs past eighty columns for sure")
	cart := e.Find(repo, "cart")
	e.WriteFile(cart.Path, "cart.go", "package cart\n")
	e.Git(cart.Path, "add", ".")
	e.Git(cart.Path, "commit", "-q", "-m", "cart")
	e.WriteFile(cart.Path, "todo.txt", "later\n")

	require.Equal(t, "cart.go\t+1 -0\ntodo.txt\tnew, uncommitted", strings.TrimSpace(e.MustOwt(repo, "diff", "cart", "--stat")))
	// Piped, the diff itself (before, the --stat lines only).
	piped := e.MustOwt(repo, "diff", "cart")
	require.Contains(t, piped, "+package cart\n")
	require.Contains(t, piped, "+later\n", "the new uncommitted file, whole")

	for _, size := range [][2]string{{"80", "24"}, {"250", "60"}} {
		for _, noColor := range []bool{true, false} {
			argv := []string{"env", "-u", "NO_COLOR", owtBin, "popup", "control"}
			if noColor {
				argv = []string{"env", "NO_COLOR=1", owtBin, "popup", "control"}
			}
			p := e.pane(repo, argv...)
			e.Tmux("resize-window", "-t", p, "-x", size[0], "-y", size[1])
			e.Eventually(10*time.Second, "cart ready at "+size[0]+"x"+size[1], func() bool {
				s := e.Capture(p)
				return sectionOf(s, "cart") == "READY TO SHIP" && strings.Contains(s, "q close")
			})
			raw, _ := e.TryTmux("capture-pane", "-p", "-e", "-t", p)
			lines := strings.Split(e.Capture(p), "\n")
			require.True(t, strings.HasPrefix(lines[0], "owt control — shop"), lines[0])
			if noColor {
				require.NotContains(t, raw, "\x1b[", "NO_COLOR: no colour or reverse video")
			} else {
				require.Contains(t, raw, "\x1b[", "colour without NO_COLOR")
			}
			if size[0] == "250" {
				require.Contains(t, e.Capture(p), "runs past eighty columns for sure")
			}
			e.keys(p, "q")
			e.waitClosed(p)
		}
	}

	e.MustOwt(repo, "tmux", "init")
	// A pane of another repo of the world's own, not the folder go test
	// runs in (a git checkout of owt, or not, as it comes).
	e.Tmux("new-window", "-t", "harness", "-c", e.NewRepo("other"))
	_, tty, screen := e.attachRecorded("harness")
	_, _ = tty.Write([]byte("\x1bo")) // Alt+o, in a pane of another repo
	e.waitDrawn(screen, "(tab: this repo)")
	_, _ = tty.Write([]byte("\t")) // every repo
	e.waitDrawn(screen, "READY TO SHIP")
	_, _ = tty.Write([]byte("q"))
	e.waitNoProcess(" control")
	require.DirExists(t, cart.Path)
}

// owt diff NAME opens the review on the worktree's files, and text from the
// worktree (a file's name and content, an agent's owt done text) is drawn
// as text: no escape sequence of it reaches the terminal.
func TestDiffReviewListsFilesAndDrawsHostileTextAsText(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart")
	cart := e.Find(repo, "cart")
	e.WriteFile(cart.Path, "na\x1b[31mme.txt", "x\n")
	e.WriteFile(cart.Path, "evil.txt", "before\x1b[2J\x1b]0;PWNED\x07\x1b[41mafter\n")
	e.Git(cart.Path, "add", ".")
	e.Git(cart.Path, "commit", "-q", "-m", "cart")

	require.NotContains(t, e.MustOwt(repo, "diff", "cart", "--stat"), "\x1b", "--stat prints names as text")

	p := e.pane(repo, owtBin, "diff", "cart")
	e.Eventually(10*time.Second, "the review lists the files", func() bool {
		return strings.Contains(e.Capture(p), "evil.txt")
	})
	require.Contains(t, e.Capture(p), "> evil.txt", "the first file is selected")
	e.Tmux("send-keys", "-t", p, "Enter")
	e.Eventually(10*time.Second, "evil.txt's diff is shown", func() bool {
		return strings.Contains(e.Capture(p), "+before[2J]0;PWNED[41mafter")
	})
	raw, _ := e.TryTmux("capture-pane", "-p", "-e", "-t", p)
	require.NotContains(t, raw, "\x1b[41m", "the file's own colour is not drawn: its escapes are text")
	require.True(t, strings.HasPrefix(e.Capture(p), "diff cart"), "nothing cleared the header")
	title, _ := e.TryTmux("display-message", "-p", "-t", p, "#{pane_title}")
	require.NotContains(t, title, "PWNED")
}
