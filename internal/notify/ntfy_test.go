package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/owt-tmux/owt/internal/ntfy"
)

type ntfyCatcher struct {
	mu     sync.Mutex
	msgs   []ntfy.Message
	auth   []string
	status int
}

func (c *ntfyCatcher) server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m ntfy.Message
		require.NoError(t, json.NewDecoder(r.Body).Decode(&m))
		c.mu.Lock()
		defer c.mu.Unlock()
		c.msgs = append(c.msgs, m)
		c.auth = append(c.auth, r.Header.Get("Authorization"))
		if c.status != 0 {
			w.WriteHeader(c.status)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func ntfyRouteFor(t *testing.T, c config.NotifyNtfy, tickets *ntfy.Tickets) Route {
	cfg := config.Defaults().Notify
	cfg.Ntfy = c
	r, ok := ntfyRoute(cfg, Deps{HTTP: nethttp.Client{}, Tickets: tickets})
	require.True(t, ok)
	return r
}

// A prompt's notice goes to the topic with the agent and repository as
// its title, a high priority, the PR as its click, and with replies on
// one button per choice that publishes a one-shot token and the choice's
// key to the reply topic.
func TestNtfyNoticeOfAPromptHasButtons(t *testing.T) {
	var c ntfyCatcher
	srv := c.server(t)
	t.Setenv("OWT_TEST_NTFY", "tk_1")
	tickets := &ntfy.Tickets{}
	r := ntfyRouteFor(t, config.NotifyNtfy{URL: srv.URL, Topic: "me", TokenEnv: "OWT_TEST_NTFY", Reply: true}, tickets)
	n := Notice{Event: "status", Agent: "a", Repo: "/src/app", Status: "waiting", Text: "owt: a needs you\x1b[2J",
		PR: "https://example.com/pr/3", Choices: []string{"Yes", "Yes, and don't ask again this session", "No", "Four"}, Prompt: "p1"}
	require.NoError(t, Deliver(context.Background(), r, n, time.Millisecond))
	require.Len(t, c.msgs, 1)
	m := c.msgs[0]
	require.Equal(t, "Bearer tk_1", c.auth[0])
	require.Equal(t, "me", m.Topic)
	require.Equal(t, "a · app", m.Title)
	require.Equal(t, "a needs you", m.Message, "escape sequences gone")
	require.Equal(t, ntfy.PriorityHigh, m.Priority)
	require.Equal(t, "https://example.com/pr/3", m.Click)
	require.Len(t, m.Actions, ntfy.MaxActions, "ntfy shows three buttons")
	require.Equal(t, "Yes", m.Actions[0].Label)
	require.Equal(t, srv.URL+"/me-reply", m.Actions[0].URL)
	token, key, ok := ntfy.ParseReply(m.Actions[1].Body)
	require.True(t, ok)
	require.Equal(t, "2", key)
	tk, err := tickets.Use(token, key)
	require.NoError(t, err)
	require.Equal(t, ntfy.Ticket{Repo: "/src/app", Agent: "a", Prompt: "p1", Keys: []string{"1", "2", "3"}, Server: tk.Server, Expires: tk.Expires}, tk)
	_, err = tickets.Use(token, "1")
	require.ErrorIs(t, err, ntfy.ErrTicketUsed, "one token for the notice: one answer")
}

// Without replies on, or for a notice that is no prompt, there are no
// buttons; a finished turn and an exit come at lower priorities.
func TestNtfyNoButtonsWithoutReplies(t *testing.T) {
	var c ntfyCatcher
	srv := c.server(t)
	tickets := &ntfy.Tickets{}
	off := ntfyRouteFor(t, config.NotifyNtfy{URL: srv.URL, Topic: "me"}, tickets)
	on := ntfyRouteFor(t, config.NotifyNtfy{URL: srv.URL, Topic: "me", Reply: true}, tickets)
	require.NoError(t, Deliver(context.Background(), off, Notice{Agent: "a", Status: "waiting", Choices: []string{"Yes", "No"}, Prompt: "p"}, 0))
	require.NoError(t, Deliver(context.Background(), on, Notice{Agent: "a", Status: "idle", Choices: []string{"Yes", "No"}, Prompt: "p"}, 0))
	require.NoError(t, Deliver(context.Background(), on, Notice{Agent: "a", Status: "exited", PR: "javascript:alert(1)"}, 0))
	require.Len(t, c.msgs, 3)
	for _, m := range c.msgs {
		require.Empty(t, m.Actions)
		require.Empty(t, m.Click, "only an http(s) PR URL is a click")
	}
	require.Equal(t, ntfy.PriorityDefault, c.msgs[1].Priority)
	require.Equal(t, ntfy.PriorityLow, c.msgs[2].Priority)
}

// A refusal (403) is not tried again; a 5xx is, twice more; neither
// failure says the token.
func TestNtfyRetriesWhatTheServerMayMend(t *testing.T) {
	var c ntfyCatcher
	srv := c.server(t)
	t.Setenv("OWT_TEST_NTFY", "tk_secret")
	r := ntfyRouteFor(t, config.NotifyNtfy{URL: srv.URL, Topic: "me", TokenEnv: "OWT_TEST_NTFY"}, nil)
	c.status = 403
	err := Deliver(context.Background(), r, Notice{Agent: "a", Status: "idle"}, time.Millisecond)
	require.Error(t, err)
	require.True(t, IsPermanent(err))
	require.Len(t, c.msgs, 1)
	c.status = 502
	err = Deliver(context.Background(), r, Notice{Agent: "a", Status: "idle"}, time.Millisecond)
	require.Error(t, err)
	require.Len(t, c.msgs, 4, "two more tries")
	require.NotContains(t, err.Error(), "tk_secret")
}
