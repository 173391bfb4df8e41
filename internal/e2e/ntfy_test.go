package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/ntfy/ntfytest"
)

// Issue 37 item 2: a permission prompt's ntfy notice carries a button per
// choice; a tap (a POST to the reply topic, as the phone makes it)
// answers that prompt exactly as owt send --answer does. The same tap
// again, and a tap on the notice of a prompt the user answered at the
// terminal meanwhile, change nothing and are told back on the topic.
func TestNtfyReplyAnswersExactlyOnePrompt(t *testing.T) {
	e := NewEnv(t)
	srv := ntfytest.New()
	defer srv.Close()
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml",
		fmt.Sprintf("[notify]\non = [\"waiting\"]\n[notify.ntfy]\nurl = %q\ntopic = \"owt-e2e\"\nreply = true\n", srv.URL))
	repo := e.NewRepo("app")
	e.newAgent(repo, "a", "claude")
	e.WaitStatus(repo, "a", "idle", 10*time.Second)

	require.Equal(t, 0, e.Owt(repo, "send", "a", "!ask rm -rf one").Code)
	e.WaitStatus(repo, "a", "waiting", 10*time.Second)
	first := e.ntfyPrompt(srv, 1)
	require.Equal(t, "a · app", first.Title)
	require.Equal(t, ntfy.PriorityHigh, first.Priority)
	require.Len(t, first.Actions, 3)
	require.Equal(t, []string{"Yes", "Yes, and don't ask again this…", "No, and tell Claude what to…"},
		[]string{first.Actions[0].Label, first.Actions[1].Label, first.Actions[2].Label})
	prompts := len(e.Prompts("a"))

	tap(t, first.Actions[0])
	e.Eventually(10*time.Second, "the tap answered the prompt", func() bool { return e.answers()["rm -rf one"] == "yes" })
	e.WaitStatus(repo, "a", "idle", 10*time.Second)
	e.ntfyTold(srv, "owt: answered a's prompt with 1")
	require.Len(t, e.Prompts("a"), prompts, "the answer was no prompt")

	// The same tap again: the token is spent.
	tap(t, first.Actions[2])
	e.ntfyTold(srv, "was answered already")

	// A second prompt, answered at the terminal ("3": no) before the tap
	// on its notice arrives: the tap is too late.
	require.Equal(t, 0, e.Owt(repo, "send", "a", "!ask rm -rf two").Code)
	e.WaitStatus(repo, "a", "waiting", 10*time.Second)
	second := e.ntfyPrompt(srv, 2)
	e.Tmux("send-keys", "-t", "="+e.Find(repo, "a").Session+":", "3")
	e.Eventually(10*time.Second, "the user's own answer", func() bool { return e.answers()["rm -rf two"] == "no" })
	e.WaitStatus(repo, "a", "idle", 10*time.Second)
	tap(t, second.Actions[0])
	e.ntfyTold(srv, "no longer on its screen")
	require.Equal(t, map[string]string{"rm -rf one": "yes", "rm -rf two": "no"}, e.answers(), "the late tap changed nothing")
	require.Len(t, e.Prompts("a"), prompts+1, "nothing typed as a prompt")
	require.Equal(t, "idle", e.Status(repo, "a").Status)
}

// ntfyPrompt waits for the n-th notice with buttons on the topic.
func (e *Env) ntfyPrompt(srv *ntfytest.Server, n int) ntfy.Message {
	e.t.Helper()
	var got []ntfy.Message
	e.Eventually(15*time.Second, fmt.Sprintf("notice %d with buttons", n), func() bool {
		got = got[:0]
		for _, m := range srv.Messages("owt-e2e") {
			if len(m.Full.Actions) > 0 {
				got = append(got, m.Full)
			}
		}
		return len(got) >= n
	})
	return got[n-1]
}

// ntfyTold waits for a line on the topic that holds text.
func (e *Env) ntfyTold(srv *ntfytest.Server, text string) {
	e.t.Helper()
	e.Eventually(15*time.Second, "told "+text, func() bool {
		for _, m := range srv.Messages("owt-e2e") {
			if strings.Contains(m.Message, text) {
				return true
			}
		}
		return false
	})
}

// tap does what the phone does when a button is tapped.
func tap(t *testing.T, a ntfy.Action) {
	t.Helper()
	require.Equal(t, "http", a.Action)
	req, err := http.NewRequest(a.Method, a.URL, strings.NewReader(a.Body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
}
