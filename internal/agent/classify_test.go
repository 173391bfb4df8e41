package agent

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

// corpus is testdata/screens/<tool>/<class>-<what>.txt: screens written to
// look like each real tool's, and screens captured from the real tools
// (the version in the name, "-v2.1.330"), the class they show named first
// ("unknown" for a screen that says nothing about the agent, such as an
// overlay the user opened).
// corpusANSI holds the same real captures with their colours (capture-pane -e).
const (
	corpus     = "../../testdata/screens"
	corpusANSI = "../../testdata/screens-ansi"
)

// wantReason is the reason a waiting screen's name says it waits for.
func wantReason(name string) string {
	switch {
	case strings.Contains(name, "hooks-need-review"):
		return WaitHooks
	case strings.Contains(name, "trust"):
		return WaitTrust
	case strings.Contains(name, "api-key"):
		return WaitAPIKey
	case strings.Contains(name, "login") || strings.Contains(name, "signin") || strings.Contains(name, "auth"):
		return WaitLogin
	}
	return ""
}

// TestClassifierCorpus classifies every screen of the corpus with its
// tool's built-in profile, reports the accuracy per tool, and fails on any
// screen read wrong.
func TestClassifierCorpus(t *testing.T) {
	tools, err := os.ReadDir(corpus)
	require.NoError(t, err)
	profiles := map[string]Profile{}
	for _, p := range Builtins() {
		profiles[p.Name] = p
	}
	var total, right int
	seen := map[string]bool{}
	for _, dir := range tools {
		p, ok := profiles[dir.Name()]
		require.True(t, ok, "corpus folder %s is not a built-in tool", dir.Name())
		seen[p.Name] = true
		cl, err := NewClassifier(p)
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(corpus, dir.Name(), "*.txt"))
		require.NoError(t, err)
		coloured, err := filepath.Glob(filepath.Join(corpusANSI, dir.Name(), "*.txt"))
		require.NoError(t, err)
		files = append(files, coloured...)
		sort.Strings(files)
		classes := map[Class]bool{}
		n, ok2 := 0, 0
		for _, f := range files {
			want := Class(strings.SplitN(strings.TrimSuffix(filepath.Base(f), ".txt"), "-", 2)[0])
			if want == "unknown" {
				want = ClassUnknown
			}
			require.Contains(t, []Class{ClassWorking, ClassWaiting, ClassIdle, ClassUnknown}, want, "%s: name it working-…, waiting-…, idle-… or unknown-…", f)
			classes[want] = true
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			got, reason := cl.Read(string(data))
			n++
			if r := wantReason(filepath.Base(f)); got == ClassWaiting && r != "" && r != reason {
				t.Errorf("%s: waits for %q, want %q", f, reason, r)
			}
			if got == want {
				ok2++
			} else {
				t.Errorf("%s: read as %q, want %q", f, got, want)
			}
		}
		require.True(t, classes[ClassWorking] && classes[ClassIdle], "%s: the corpus needs working and idle screens", p.Name)
		t.Logf("%-13s %2d/%2d screens right", p.Name, ok2, n)
		total += n
		right += ok2
	}
	for name := range profiles {
		require.True(t, seen[name], "no corpus for built-in tool %s", name)
	}
	t.Logf("accuracy: %d/%d (%.1f%%)", right, total, 100*float64(right)/float64(total))
}

func TestRealCapturesHaveColouredTwins(t *testing.T) {
	plain, err := filepath.Glob(filepath.Join(corpus, "*", "*-v[0-9]*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, plain)
	for _, f := range plain {
		rel, _ := filepath.Rel(corpus, f)
		require.FileExists(t, filepath.Join(corpusANSI, rel), "a real capture is kept plain and with colours")
	}
}

func TestLowestMarkerWins(t *testing.T) {
	p := Profile{Name: "x", Working: `esc to interrupt`, Waiting: `Do you want to proceed\?`, Idle: `(?m)^> $`}
	cl, err := NewClassifier(p)
	require.NoError(t, err)
	stale := "Do you want to proceed?\n 1. Yes\nran it\n\n> \n"
	require.Equal(t, ClassIdle, cl.Classify(stale), "an answered dialog above the empty input box is history")
	require.Equal(t, ClassWaiting, cl.Classify("> \nDo you want to proceed?\n 1. Yes\n"))
	require.Equal(t, ClassWorking, cl.Classify("Do you want to proceed?\nThinking (esc to interrupt)\n> \n"), "a spinner above the input box is a turn in progress")
	require.Equal(t, ClassIdle, cl.Classify("Thinking (esc to interrupt)\nInterrupted by user\n> \n"), "a spinner left over from an interrupted turn")
	// Generic dialogs, for any tool.
	for _, screen := range []string{"Pick one\n❯ 1. Red\n  2. Blue\n", "Welcome\nPress enter to continue\n", "Overwrite? [y/N]\n", "Enter the authorization code: \n"} {
		got, _ := cl.Read(screen)
		require.Equal(t, ClassWaiting, got, screen)
	}
	_, why := cl.Read("Do you trust the files in this folder?\n● 1. Trust folder\n")
	require.Equal(t, WaitTrust, why)
}

// Text that looks like a marker but is transcript, or the user's draft in
// the input box, is not one (review findings on real screens).
func TestMarkersInTranscriptAndDraftsDoNotCount(t *testing.T) {
	profiles := map[string]Profile{}
	for _, p := range Builtins() {
		profiles[p.Name] = p
	}
	claude, err := NewClassifier(profiles["claude"])
	require.NoError(t, err)
	real, err := os.ReadFile(filepath.Join(corpus, "claude", "idle-interrupted-80x24-v2.1.330.txt"))
	require.NoError(t, err)
	require.Contains(t, string(real), "❯\u00a0say hi")
	for _, draft := range []string{"fix the parser so it asks [y/N] first", "store the API key:", "make it print Press enter to continue"} {
		screen := strings.Replace(string(real), "❯\u00a0say hi", "❯\u00a0"+draft, 1)
		got, _ := claude.Read(screen)
		require.Equal(t, ClassIdle, got, "a draft in the input box: %q", draft)
	}

	far := "I looked at the code: press esc to interrupt a turn.\n" + strings.Repeat("more of the answer\n", 12) + "\n╭────╮\n│ > │\n╰────╯\n  ? for shortcuts\n"
	require.Equal(t, ClassIdle, claude.Classify(far), "'esc to interrupt' far above the prompt is transcript")

	prompt := "Bash command\n  gh auth login --with-token\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n"
	got, why := claude.Read(prompt)
	require.Equal(t, ClassWaiting, got)
	require.Equal(t, WaitPermission, why, "a command with 'login' in it is a permission prompt")
}

func TestClassifierIgnoresStatusBarAndOldText(t *testing.T) {
	p := Profile{Name: "x", Working: `busy now`, Waiting: `Proceed\?`, Idle: `^> $`, StatusBar: `^\[bar\]`}
	cl, err := NewClassifier(p)
	require.NoError(t, err)
	require.Equal(t, ClassIdle, cl.Classify("hello\n> \n[bar] branch busy now · Proceed?\n"), "status-bar lines are not a spinner or a question")
	require.Equal(t, ClassWorking, cl.Classify("\x1b[1mbusy now\x1b[0m\n> \n"), "escape sequences are stripped")
	old := "Proceed?\n" + strings.Repeat("line\n", liveLines) + "> \n\n\n"
	require.Equal(t, ClassIdle, cl.Classify(old), "a question scrolled out of the live part does not count")
	require.Equal(t, ClassUnknown, cl.Classify("$ ls\nREADME.md\n"))
}

func TestClassifierForConfiguredTool(t *testing.T) {
	profiles, err := Profiles(config.Config{Tools: map[string]config.Tool{
		"mytool": {Command: []string{"mytool"}, Working: `(?i)thinking`, Waiting: `Allow\? \[y/n\]`, Idle: `^mytool> $`},
	}})
	require.NoError(t, err)
	cl, err := NewClassifier(profiles["mytool"])
	require.NoError(t, err)
	require.Equal(t, ClassWorking, cl.Classify("THINKING...\nmytool> "))
	require.Equal(t, ClassWaiting, cl.Classify("rm x\nAllow? [y/n]"))
	require.Equal(t, ClassIdle, cl.Classify("done\nmytool> "))
}

func readScreen(t *testing.T, tool, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, tool, name+".txt"))
	require.NoError(t, err)
	return string(data)
}

// How a turn ended, from the marks the real tools leave (issue 16, item
// 17 and 19): Esc is not a finished turn, an error before sign-in is a
// failed one, and a mark left over from an earlier turn says nothing
// about the last.
func TestTurnEndOnRealScreens(t *testing.T) {
	for _, c := range []struct {
		tool, before, after string
		interrupted         bool
		failure             string
	}{
		{"claude", "working-api-retry-v2.1.330", "idle-interrupted-what-instead-v2.1.330", true, ""},
		{"claude", "idle-interrupted-what-instead-v2.1.330", "idle-done-after-interrupt-v2.1.330", false, ""},
		{"codex", "working-v0.169.0", "idle-interrupted-80x24-v0.169.0", true, ""},
		{"codex", "working-v0.169.0", "idle-done-v0.169.0", false, ""},
		{"codex", "working-v0.169.0", "idle-turn-failed-401-v0.169.0", false, "unexpected status 401 Unauthorized: Incorrect API key provided: sk-owt-t***, url:"},
		{"gemini", "working-thinking-v0.61.0", "idle-request-cancelled-resized-80x24-v0.61.0", true, ""},
		{"gemini", "waiting-auth-method-i-prompt-v0.61.0", "idle-turn-failed-before-auth-v0.61.0", false, "Content generator not initialized"},
		{"opencode", "working-retrying-v1.18.33", "idle-interrupted-v1.18.33", true, ""},
		// An answer stopped while it streamed, its footer's row shared with
		// the sidebar of a wide window ("· interrupted   …   $0.00 spent").
		{"opencode", "working-v1.18.33-none", "idle-interrupted-streaming-v1.18.33", true, ""},
		{"opencode", "working-v1.18.33-none", "idle-done", false, ""},
	} {
		before := TurnMarks{}
		if !strings.HasSuffix(c.before, "-none") {
			before = Marks(readScreen(t, c.tool, c.before))
		}
		interrupted, failure := TurnEnd(before, Marks(readScreen(t, c.tool, c.after)))
		require.Equal(t, c.interrupted, interrupted, "%s: %s after %s", c.tool, c.after, c.before)
		require.Equal(t, c.failure, failure, "%s: %s after %s", c.tool, c.after, c.before)
	}
}

// Codex booting its background server is busy, but not with a turn: the
// first turn has not started.
func TestCodexBootingIsNoTurn(t *testing.T) {
	cl, err := NewClassifier(Builtins()[1])
	require.NoError(t, err)
	turnRunning := func(screen string) bool {
		class, _ := cl.Read(screen)
		return class == ClassWorking && !Booting(screen)
	}
	require.False(t, turnRunning(readScreen(t, "codex", "working-reconnecting-to-server-v0.169.0")))
	require.True(t, turnRunning(readScreen(t, "codex", "working-v0.169.0")))
}

// Codex's F2 overlay is something the user opened to read: no question
// to them. Its "Hooks need review" asks them to trust hooks, not a folder.
func TestCodexOverlayAndHookReview(t *testing.T) {
	profiles := map[string]Profile{}
	for _, p := range Builtins() {
		profiles[p.Name] = p
	}
	cl, err := NewClassifier(profiles["codex"])
	require.NoError(t, err)
	got, _ := cl.Read(readScreen(t, "codex", "unknown-warnings-viewer-v0.169.0"))
	require.Equal(t, ClassUnknown, got)
	got, why := cl.Read(readScreen(t, "codex", "waiting-hooks-need-review-v0.169.0"))
	require.Equal(t, ClassWaiting, got)
	require.Equal(t, WaitHooks, why)
}

// A task the tool took is echoed in its transcript, above the input
// prompt; a fresh screen, or the task still in the input box, is not.
func TestTaskEchoedOnRealScreens(t *testing.T) {
	profiles := map[string]Profile{}
	for _, p := range Builtins() {
		profiles[p.Name] = p
	}
	cases := []struct {
		tool, screen, task string
		want               bool
	}{
		{"opencode", "idle-interrupted-v1.18.33", "say hi", true},
		{"opencode", "idle-interrupted-v1.18.33", "say hi\nand more", true},
		{"opencode", "idle-fresh-v1.18.33", "say hi", false},
		{"opencode", "idle-done", "Fix the login redirect after password reset and the logout one", true},
		{"codex", "idle-done-v0.169.0", "say hi", true},
		{"codex", "idle-fresh-v0.169.0", "say hi", false},
		{"codex", "idle-done-v0.169.0", "say bye", false},
		{"gemini", "idle-turn-failed-before-auth-v0.61.0", "say hi", true},
		{"opencode", "idle-done", "", false},
	}
	for _, c := range cases {
		cl, err := NewClassifier(profiles[c.tool])
		require.NoError(t, err)
		require.Equal(t, c.want, cl.TaskEchoed(readScreen(t, c.tool, c.screen), c.task), "%s %s: %q", c.tool, c.screen, c.task)
	}
	// The task typed into Codex's box, not sent yet.
	cl, err := NewClassifier(profiles["codex"])
	require.NoError(t, err)
	unsent := strings.Replace(readScreen(t, "codex", "idle-fresh-v0.169.0"), "Ask Codex to do anything", "say hi", 1)
	require.False(t, cl.TaskEchoed(unsent, "say hi"))
}

// A [tools.X] pattern that spans rows ("\n", "\s") still matches: it is
// read on the whole text, not row by row.
func TestRowSpanningToolPatternStillMatches(t *testing.T) {
	cl, err := NewClassifier(Profile{Name: "mine", Command: []string{"mine"},
		Waiting: `Run this command\?\n\s*Yes`, Idle: `^> $`, Working: `(?s)busy.*tick`})
	require.NoError(t, err)
	require.Equal(t, ClassWaiting, cl.Classify("some output\nRun this command?\n  Yes   No\n"))
	require.Equal(t, ClassWorking, cl.Classify("busy\nstill tick\n"))
	require.Equal(t, ClassIdle, cl.Classify("done\n> \n"))
}
