package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A message never answers a permission prompt by accident: a send to a
// waiting agent is refused unless --answer says to type into it, and
// --all skips waiting agents.
func TestSendNeverAnswersAPromptByAccident(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.newAgent(repo, "a", "claude")
	e.newAgent(repo, "b", "claude")
	require.Equal(t, 0, e.Owt(repo, "send", "a", "!ask rm -rf build").Code)
	e.WaitStatus(repo, "a", "waiting", 10*time.Second)
	e.WaitStatus(repo, "b", "idle", 10*time.Second)

	r := e.Owt(repo, "send", "a", "1 quick status check")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "owt send --answer a")
	r = e.Owt(repo, "send", "--all", "status?")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "sent to b\n", r.Stdout)
	require.Equal(t, "owt: skipped a: it waits for you (see 'owt status a')\n", r.Stderr, "the skipped agent is named")
	require.Len(t, e.Prompts("a"), 2, "a got nothing while it waited")
	require.Equal(t, "waiting", e.Status(repo, "a").Status)

	require.Equal(t, "answered a's prompt\n", e.MustOwt(repo, "send", "--answer", "a", "1"))
	e.WaitStatus(repo, "a", "idle", 10*time.Second)

	// Two prompts back to back: the answer "1" takes the first at once; no
	// Enter follows it into the second, which the user has not seen.
	require.Equal(t, 0, e.Owt(repo, "send", "b", "!ask first-cmd\n!ask rm -rf second-cmd").Code)
	e.WaitStatus(repo, "b", "waiting", 10*time.Second)
	require.Equal(t, "answered b's prompt\n", e.MustOwt(repo, "send", "--answer", "b", "1"))
	e.WaitScreen("="+e.Find(repo, "b").Session+":", "second-cmd")
	require.Equal(t, "waiting", e.Status(repo, "b").Status, "the second prompt still waits for the user: %v\n%s", e.answers(), e.Capture("="+e.Find(repo, "b").Session+":"))
	// The user answers the second prompt "no" (3). Keys are read in order,
	// so an Enter owt had let leak into it would have answered "yes" first.
	e.Tmux("send-keys", "-t", "="+e.Find(repo, "b").Session+":", "3")
	e.Eventually(10*time.Second, "the second prompt is answered", func() bool { return len(e.answers()) == 2 })
	require.Equal(t, map[string]string{"first-cmd": "yes", "rm -rf second-cmd": "no"}, e.answers(), "only the user answered the second prompt")
}

// answers maps each permission prompt the fake agents answered (by its
// command) to the answer.
func (e *Env) answers() map[string]string {
	out := map[string]string{}
	data, _ := os.ReadFile(e.Log)
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct{ Event, Command, Answer string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "ask" && ev.Command != "rm -rf build" {
			out[ev.Command] = ev.Answer
		}
	}
	return out
}

// Control characters in a message are not keys: no Ctrl-C reaches the
// agent, no ESC ends the bracketed paste early to submit a second prompt.
func TestSendStripsControlCharacters(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.newAgent(repo, "c", "claude")
	e.WaitStatus(repo, "c", "idle", 10*time.Second)
	require.Equal(t, 0, e.Owt(repo, "send", "c", "stop\x03\x03 please").Code)
	prompts := e.WaitPrompts("c", 2)
	require.Equal(t, "stop please", prompts[1])
	e.WaitStatus(repo, "c", "idle", 10*time.Second)

	// An ESC [201~ would end the bracketed paste early and the CR after it
	// would submit; the rest would arrive as a second prompt of its own.
	injected := "review says:\nok\x1b[201~\r!write INJECTED pwn\r"
	require.Equal(t, 0, e.Owt(repo, "send", "c", injected).Code)
	prompts = e.WaitPrompts("c", 3)
	require.Equal(t, "review says:\nok[201~\n!write INJECTED pwn", strings.TrimRight(prompts[2], "\n"), "one prompt, control characters gone")
	e.WaitStatus(repo, "c", "idle", 10*time.Second)
	// A marker sent now must be the very next prompt: a second prompt made
	// of the injected text would come before it.
	require.Equal(t, 0, e.Owt(repo, "send", "c", "marker").Code)
	prompts = e.WaitPrompts("c", 4)
	require.Equal(t, "marker", prompts[3], "no second prompt")
	require.NotEqual(t, "exited", e.Status(repo, "c").Status)
}

// Choosing agents by status never answers their prompts: --waiting alone
// is refused before anything is typed; --answer is the one way to type
// into a prompt, and owt says "answered", not "sent", when the dialog took
// the text, and says so when the rest of it sits typed, not submitted.
func TestSendByStatusNeverAnswersAPrompt(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.newAgent(repo, "w", "claude")
	e.WaitStatus(repo, "w", "idle", 20*time.Second)
	e.MustOwt(repo, "send", "w", "!ask rm -rf dist\n!ask rm -rf cache")
	e.WaitStatus(repo, "w", "waiting", 20*time.Second)
	pane := "=" + w.Session + ":"
	e.WaitScreen(pane, "rm -rf dist")

	r := e.Owt(repo, "send", "--waiting", "approve it")
	require.Equal(t, 2, r.Code, r.Stderr)
	requireOneLineError(t, r, "--answer")
	require.Empty(t, r.Stdout)
	require.Empty(t, e.answers(), "nothing answered")
	require.NotContains(t, e.Capture(pane), "pprove", "nothing typed")
	require.Equal(t, "waiting", e.Status(repo, "w").Status)

	// --answer with one key: the dialog took it; no prompt was sent.
	r = e.Owt(repo, "send", "--waiting", "--answer", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "answered w's prompt\n", r.Stdout)
	e.Eventually(10*time.Second, "dist answered", func() bool { return e.answers()["rm -rf dist"] == "yes" })
	e.WaitScreen(pane, "rm -rf cache")
	e.WaitStatus(repo, "w", "waiting", 20*time.Second)

	// --answer with words: the first key answers the menu ("a": yes,
	// always), the rest is left in the input. Not "sent": owt says what
	// happened and exits 1.
	prompts := len(e.Prompts("w"))
	r = e.Owt(repo, "send", "--json", "--answer", "w", "approve it")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "not submitted")
	require.Contains(t, r.Stderr, "its prompt took part of the text as its answer")
	var res []struct {
		Name     string
		Sent     bool
		Answered bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.Len(t, res, 1)
	require.False(t, res[0].Sent, "the text did not become a prompt")
	require.Equal(t, "always", e.answers()["rm -rf cache"])
	require.Len(t, e.Prompts("w"), prompts, "no prompt was submitted")
}

// freezeMonitor stops this env's status monitor, so records keep saying
// what they said while the screens move on: the lag a tool read from its
// screen (codex) has for a second or more, made to hold. The monitor runs
// again at the end of the test, before the server is killed.
func (e *Env) freezeMonitor() {
	e.t.Helper()
	e.FreezeMonitor()
}

// userTypes is the user typing a prompt into an agent's pane and pressing
// Enter.
func (e *Env) userTypes(pane, text string) {
	e.t.Helper()
	e.Tmux("send-keys", "-t", pane, "-l", text)
	e.Tmux("send-keys", "-t", pane, "Enter")
}

// A permission prompt on screen that the record has not caught up with
// (codex is known by its screen only) gets nothing typed into it by owt
// send, by name or by group: owt looks at the pane before it types.
func TestSendLooksAtTheScreenBeforeTyping(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	cx := e.newAgent(repo, "cx", "codex")
	e.WaitStatus(repo, "cx", "idle", 30*time.Second)
	e.freezeMonitor()

	pane := "=" + cx.Session + ":"
	e.userTypes(pane, "!ask dangerous")
	e.WaitScreen(pane, "Allow command?")
	prompts := len(e.Prompts("cx"))
	require.Equal(t, "idle", e.Status(repo, "cx").Status, "the record lags the screen")

	for _, args := range [][]string{{"send", "cx", "abc"}, {"send", "--idle", "abc"}, {"send", "--all", "abc"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 1, r.Code, "%v: %s", args, r.Stdout)
		require.NotContains(t, r.Stdout, "sent", args)
		require.Contains(t, r.Stderr, "cx: not ready: it waits for your permission", args)
		require.Contains(t, r.Stderr, "nothing was typed", args)
	}
	require.Empty(t, e.answers()["dangerous"], "the prompt was not answered")
	require.Len(t, e.Prompts("cx"), prompts, "no prompt was submitted")
	require.NotContains(t, e.Capture(pane), "bc", "nothing typed")

	// --answer answers the prompt on screen, though the record lags.
	require.Equal(t, "answered cx's prompt\n", e.MustOwt(repo, "send", "--answer", "cx", "1"))
	e.Eventually(10*time.Second, "the answer", func() bool { return e.answers()["dangerous"] == "yes" })
	require.Len(t, e.Prompts("cx"), prompts, "the answer was no prompt")

	// The same with the prompt asked for through owt send: the record says
	// working (owt set it when it typed), the screen asks.
	e.MustOwt(repo, "send", "cx", "!ask again-dangerous")
	e.WaitScreen(pane, "$ again-dangerous") // the dialog's command line
	prompts = len(e.Prompts("cx"))
	r := e.Owt(repo, "send", "cx", "abc")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "cx: not ready: it waits for your permission")
	require.Empty(t, e.answers()["again-dangerous"], "the prompt was not answered")
	require.Len(t, e.Prompts("cx"), prompts, "no prompt was submitted")
}

// --answer types only into a prompt that is on screen: an agent whose
// prompt the user answered meanwhile (the record still says waiting), or
// one that is idle, is refused and gets nothing. --answer with a group
// other than --waiting, and a multi-line answer, are bad usage.
func TestAnswerOnlyIntoAPromptOnScreen(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	conf1 := e.newAgent(repo, "conf1", "codex")
	e.newAgent(repo, "conf2", "claude")
	e.WaitStatus(repo, "conf1", "idle", 30*time.Second)
	e.WaitStatus(repo, "conf2", "idle", 30*time.Second)
	e.MustOwt(repo, "send", "conf1", "!ask thing\n!sleep 300s")
	e.WaitStatus(repo, "conf1", "waiting", 30*time.Second)
	e.freezeMonitor()

	pane := "=" + conf1.Session + ":"
	e.Tmux("send-keys", "-t", pane, "1")
	e.Eventually(10*time.Second, "the user's answer", func() bool { return e.answers()["thing"] == "yes" })
	e.WaitScreen(pane, "esc to interrupt")
	require.Equal(t, "waiting", e.Status(repo, "conf1").Status, "the record lags the screen")
	prompts1, prompts2 := len(e.Prompts("conf1")), len(e.Prompts("conf2"))

	for _, args := range [][]string{{"send", "--waiting", "--answer", "1"}, {"send", "--answer", "conf1", "1"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 1, r.Code, "%v: %s", args, r.Stdout)
		require.Empty(t, r.Stdout, args)
		require.Contains(t, r.Stderr, "conf1: not ready: it does not wait on a prompt now (its screen reads working)", args)
	}
	r := e.Owt(repo, "send", "--answer", "conf2", "1")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "conf2: not ready: it does not wait on a prompt now (its screen reads idle)")

	for _, args := range [][]string{
		{"send", "--answer", "--all", "1"},
		{"send", "--answer", "--idle", "1"},
		{"send", "--answer", "--working", "1"},
		{"send", "--answer", "conf2", "1\n2"},
	} {
		r := e.Owt(repo, args...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stderr)
		require.Empty(t, r.Stdout, args)
		require.Contains(t, r.Stderr, "--answer", args)
	}
	require.Len(t, e.Prompts("conf1"), prompts1, "conf1 got no prompt")
	require.Len(t, e.Prompts("conf2"), prompts2, "conf2 got no prompt")
	require.False(t, strings.Contains(e.Capture(pane), "› 1"), "nothing typed into conf1")
}
