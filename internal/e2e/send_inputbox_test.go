package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The input box of the agent a test names, as its screen shows it.
func (e *Env) inputRow(session string) string {
	e.t.Helper()
	rows := strings.Split(e.Capture(session), "\n")
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasPrefix(rows[i], "│ > ") {
			return strings.TrimSpace(strings.Trim(strings.TrimPrefix(rows[i], "│ > "), "│"))
		}
	}
	return ""
}

// A message whose Enter did not take stays in the agent's input box; the
// next owt send erases that leftover of owt's own before it types, so the
// agent gets the new text alone, not "status?run the tests".
func TestSendErasesItsOwnLeftoverFirst(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "!swallow-enter 3")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })

	r := e.Owt(repo, "send", "a", "status?")
	requireOneLineError(t, r, "typed but not submitted")
	require.Equal(t, "status?", e.inputRow("app/a"), "the unsubmitted text waits in the box")

	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "run the tests"))
	got := e.WaitPrompts("a", 2)
	require.Equal(t, []string{"!swallow-enter 3", "run the tests"}, got)
}

// Text in the box that owt did not type (the user's draft) is never
// erased and never glued to owt's text: the send is refused, says why,
// and types nothing.
func TestSendRefusesWhenTheInputHoldsTheUsersText(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	e.Tmux("send-keys", "-t", "app/a", "-l", "my draft")
	e.WaitScreen("app/a", "my draft")

	r := e.Owt(repo, "send", "a", "hello")
	requireOneLineError(t, r, "input box holds text owt did not type")
	require.Contains(t, r.Stderr, `"my draft"`)
	require.Contains(t, r.Stderr, "nothing was typed")
	require.Equal(t, "my draft", e.inputRow("app/a"), "the user's text is kept, alone")

	// Cleared by the user, the box takes owt's text again.
	e.Tmux("send-keys", "-t", "app/a", "C-u")
	e.Eventually(10*time.Second, "the box is empty", func() bool { return e.inputRow("app/a") == "" })
	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "hello"))
	require.Equal(t, []string{"Task", "hello"}, e.WaitPrompts("a", 2))
}

// Esc in Claude Code puts the stopped prompt back in its input box (the
// fake does as the real one): owt's next send erases that prompt, which
// owt gave, rather than sending it again with the new text glued on.
func TestSendAfterEscDoesNotResendTheStoppedPrompt(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "!sleep 60")
	e.WaitScreen("app/a", "esc to interrupt")
	e.Tmux("send-keys", "-t", "app/a", "Escape")
	e.WaitScreen("app/a", "Interrupted")
	e.Eventually(10*time.Second, "the task is back in the box", func() bool { return e.inputRow("app/a") == "!sleep 60" })

	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "!sleep 60\\nwork on"))
	e.WaitScreen("app/a", "esc to interrupt")
	e.Tmux("send-keys", "-t", "app/a", "Escape")
	e.Eventually(10*time.Second, "owt's message is back in the box", func() bool {
		return strings.HasPrefix(e.inputRow("app/a"), "!sleep 60")
	})
	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "next"))
	require.Equal(t, []string{"!sleep 60", "!sleep 60\\nwork on", "next"}, e.WaitPrompts("a", 3))
}

// A peer's message whose Enter did not take is owt's own leftover: the
// courier erases it before the next one, which arrives alone. A draft of
// the user's holds the messages back (nothing typed) until it is gone.
func TestPeerMessagesMindTheInputBox(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task a")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "b", "!swallow-enter 3")
	for _, n := range []string{"a", "b"} {
		e.Eventually(30*time.Second, n+" idle", func() bool { return e.Find(repo, n).Status == "idle" })
	}
	a := e.mcpAs("a", e.Find(repo, "a").Repo)

	out, isErr := call(t, a, "send_message", map[string]any{"to": "b", "text": "status?"})
	require.False(t, isErr, out)
	e.Eventually(30*time.Second, "the courier gave up on Enter", func() bool { return e.agentEvents("b", "swallowed") == 3 })
	e.Eventually(10*time.Second, "status? waits in b's box", func() bool { return e.inputRow("app/b") == "[from a] status?" })

	out, isErr = call(t, a, "send_message", map[string]any{"to": "b", "text": "run the tests"})
	require.False(t, isErr, out)
	e.Eventually(30*time.Second, "b got the second message", func() bool { return len(e.promptsWith("b", "run the tests")) > 0 })
	require.Equal(t, []string{"[from a] run the tests"}, e.promptsWith("b", "[from a]"))

	// The user's draft in b's box: the courier types nothing.
	e.Eventually(30*time.Second, "b idle", func() bool { return e.Find(repo, "b").Status == "idle" })
	e.Tmux("send-keys", "-t", "app/b", "-l", "my draft")
	e.WaitScreen("app/b", "my draft")
	out, isErr = call(t, a, "send_message", map[string]any{"to": "b", "text": "third"})
	require.False(t, isErr, out)
	e.Eventually(20*time.Second, "owt messages says what holds it", func() bool {
		return strings.Contains(e.MustOwt(repo, "messages", "--json"), "its input box holds text owt did not type")
	})
	time.Sleep(2 * time.Second) // past the courier's next ticks
	require.Equal(t, "my draft", e.inputRow("app/b"), "nothing typed after the user's draft")
	require.Empty(t, e.promptsWith("b", "third"))
	// Sent by the user, the draft leaves an empty box: the message goes.
	e.Tmux("send-keys", "-t", "app/b", "Enter")
	e.Eventually(30*time.Second, "b got the third message", func() bool { return len(e.promptsWith("b", "third")) > 0 })
	require.Equal(t, []string{"[from a] third"}, e.promptsWith("b", "third"))
	require.Equal(t, []string{"my draft"}, e.promptsWith("b", "my draft"))
}

// Real Claude Code puts a prompt stopped with Esc back in its input box;
// owt send then erases that prompt (owt gave it) before it types, so the
// model is asked the new text alone, not "hold onsay hi".
func TestRealClaudeSendAfterEscSendsOnlyTheNewText(t *testing.T) {
	e := realEnv(t, "claude")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	const key = "sk-ant-owt-test-not-a-real-key-0123456789"
	realClaudeHome(t, e, key, repo)
	e.setWorld("ANTHROPIC_API_KEY", key)
	e.setWorld("ANTHROPIC_BASE_URL", api.URL)

	s := e.newReal(repo, "k", "claude", "hold on")
	e.seeOnScreen(s, "esc to interrupt")
	e.press(s, "Escape")
	// Stopped before the model began its answer, the prompt leaves the
	// transcript and is back in the box (stopped later, it stays in the
	// transcript and the box is empty).
	for deadline := time.Now().Add(20 * time.Second); claudeBox(e.Capture("="+s+":")) != "hold on"; {
		if time.Now().After(deadline) {
			t.Fatalf("claude did not put the task back in its box:\n%s", e.Capture("="+s+":"))
		}
		time.Sleep(200 * time.Millisecond)
	}

	require.Equal(t, "sent to k\n", e.MustOwt(repo, "send", "k", "say hi"))
	e.Eventually(30*time.Second, "the model was asked", func() bool { return api.got("say hi") })
	require.False(t, api.got("hold onsay hi"), "the stopped prompt was sent again with the new text glued on")
	require.True(t, api.got(`"say hi"`), "the new text is a message of its own")

	// A 2 KB message goes in as a paste ("[Pasted text #1 +N lines]")
	// and then Enter: owt never says idle between the send and the turn
	// it starts (issue 32 item 15).
	rec := e.recordStatuses(repo)
	e.Eventually(30*time.Second, "k idle", func() bool {
		h := rec.history("k")
		return len(h) > 0 && h[len(h)-1].Status == "idle"
	})
	from := rec.mark("k")
	long := strings.Repeat("Add the login page, its form and its tests. ", 45) + "wait forever"
	require.Equal(t, "sent to k\n", e.MustOwt(repo, "send", "k", long))
	e.Eventually(30*time.Second, "the model was asked the long text", func() bool { return api.got("wait forever") })
	e.Eventually(30*time.Second, "owt says working", func() bool {
		h := rec.history("k")
		return len(h) > from && h[len(h)-1].Status == "working"
	})
	time.Sleep(3 * time.Second) // a misread would come within the monitor's next ticks
	h := rec.history("k")[from:]
	require.Equal(t, []seenStatus{{Name: "k", Status: "working"}}, h, historyText(rec.history("k")))
}

// claudeBox is the text of Claude Code's input box: the "❯" row right
// under a rule (the transcript's "❯" rows have none above them).
func claudeBox(screen string) string {
	rows := strings.Split(screen, "\n")
	for i := len(rows) - 1; i > 0; i-- {
		if strings.HasPrefix(rows[i], "❯") && strings.HasPrefix(rows[i-1], "───") {
			return strings.Trim(strings.TrimPrefix(rows[i], "❯"), " \u00a0")
		}
	}
	return ""
}

// A text owt sent that the agent took is no leftover: a draft the user
// types later that starts the same way ("please run the" after owt sent
// "please run the tests") is the user's, and is never erased.
func TestSendKeepsADraftThatStartsLikeOwtsLastText(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Fix the login page")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "please run the tests"))
	require.Equal(t, []string{"Fix the login page", "please run the tests"}, e.WaitPrompts("a", 2))
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })

	for _, draft := range []string{"please run the", "Fix the login"} {
		e.Tmux("send-keys", "-t", "app/a", "C-u")
		e.Eventually(10*time.Second, "the box is empty", func() bool { return e.inputRow("app/a") == "" })
		e.Tmux("send-keys", "-t", "app/a", "-l", draft)
		e.Eventually(10*time.Second, "the draft is in the box", func() bool { return e.inputRow("app/a") == draft })
		r := e.Owt(repo, "send", "a", "hello")
		requireOneLineError(t, r, "input box holds text owt did not type")
		require.Equal(t, draft, e.inputRow("app/a"), "the user's draft is kept")
	}
	require.Empty(t, e.promptsWith("a", "hello"))
}

// A draft that reads like the tool's own hint (Claude Code's empty box
// shows `Try "…"`) is still the user's: owt sees its text land after it,
// takes its own text back out and submits nothing, so the draft is
// neither sent early nor glued to owt's text.
func TestSendDoesNotSubmitADraftThatLooksLikeTheHint(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	const draft = `Try "make check"`
	e.Tmux("send-keys", "-t", "app/a", "-l", draft)
	e.Eventually(10*time.Second, "the draft is in the box", func() bool { return e.inputRow("app/a") == draft })

	r := e.Owt(repo, "send", "a", "hello")
	requireOneLineError(t, r, "input box holds text owt did not type")
	require.Contains(t, r.Stderr, "nothing was sent")
	e.Eventually(10*time.Second, "the box holds the draft alone again", func() bool { return e.inputRow("app/a") == draft })
	// Known now as a draft, it is not typed after again.
	r = e.Owt(repo, "send", "a", "hello")
	requireOneLineError(t, r, "input box holds text owt did not type")
	require.Contains(t, r.Stderr, "nothing was typed")
	time.Sleep(time.Second)
	require.Equal(t, []string{"Task"}, e.WaitPrompts("a", 1))
	require.Equal(t, draft, e.inputRow("app/a"))
	require.Empty(t, e.promptsWith("a", "hello"))
}

// owt's text whose Enter did not take, cleared by the user, who then
// types a draft of their own that starts the same way: the draft is not
// a piece of owt's leftover (owt leaves a piece only when its erasing is
// cut off), and is kept.
func TestSendKeepsADraftRetypedAfterOwtsLeftoverWasCleared(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "!swallow-enter 3")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	r := e.Owt(repo, "send", "a", "please run the tests")
	requireOneLineError(t, r, "typed but not submitted")
	require.Equal(t, "please run the tests", e.inputRow("app/a"))

	e.Tmux("send-keys", "-t", "app/a", "C-u")
	e.Eventually(10*time.Second, "the box is empty", func() bool { return e.inputRow("app/a") == "" })
	e.Tmux("send-keys", "-t", "app/a", "-l", "please run the")
	e.Eventually(10*time.Second, "the draft is in the box", func() bool { return e.inputRow("app/a") == "please run the" })
	r = e.Owt(repo, "send", "a", "hello")
	requireOneLineError(t, r, "input box holds text owt did not type")
	require.Equal(t, "please run the", e.inputRow("app/a"), "the user's draft is kept")
	require.Empty(t, e.promptsWith("a", "hello"))
}

// Claude Code may suggest the next prompt in its empty box after a turn
// (an account-side flag; OWT_FAKE_SUGGESTION plays it), text no pattern
// tells from a draft, so every owt send would be refused. owt starts
// Claude with its own switch of them off; one set in the user's own
// environment stands.
func TestClaudeStartsWithoutPromptSuggestions(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Tmux("set-environment", "-g", "OWT_FAKE_SUGGESTION", "run the linter next")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	start, _ := e.Start("a")
	require.Equal(t, "false", start.Env["CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION"])
	require.Equal(t, "", e.inputRow("app/a"), "no suggestion in the box")
	require.Equal(t, "sent to a\n", e.MustOwt(repo, "send", "a", "next step"))
	require.Equal(t, []string{"Task", "next step"}, e.WaitPrompts("a", 2))

	// The user's own choice stands (and the box then holds a suggestion).
	e.Tmux("set-environment", "-g", "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION", "1")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "b", "Task")
	e.Eventually(30*time.Second, "b idle", func() bool { return e.Find(repo, "b").Status == "idle" })
	start, _ = e.Start("b")
	require.Equal(t, "1", start.Env["CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION"])
	e.WaitScreen("app/b", "run the linter next")
}
