package ntfy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/ntfy/ntfytest"
)

// A notice goes out as ntfy's JSON publish: topic, title, message,
// priority, tags, click and the action buttons, with the token from the
// environment variable the config names.
func TestPublishSendsTheJSONMessage(t *testing.T) {
	var got map[string]any
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "POST", r.Method)
		require.Equal(t, "/", r.URL.Path)
		auth = r.Header.Get("Authorization")
		require.NoError(t, json.NewDecoder(r.Body).Decode(&got))
		w.Write([]byte(`{"id":"x"}`))
	}))
	defer srv.Close()
	t.Setenv("OWT_TEST_NTFY_TOKEN", "tk_abc")
	s := ntfy.Server{URL: srv.URL + "/", Topic: "owt-me", TokenEnv: "OWT_TEST_NTFY_TOKEN"}
	err := ntfy.Publish(context.Background(), nethttp.Client{}, s, ntfy.Message{
		Topic: "owt-me", Title: "a · app", Message: "a needs you \"quoted\"\x1b[31m", Priority: ntfy.Priority("waiting"),
		Tags: ntfy.Tags("waiting"), Click: "https://example.com/pr/1",
		Actions: []ntfy.Action{{Action: "http", Label: "Yes", URL: s.TopicURL("owt-me-reply"), Method: "POST", Body: "tok 1", Clear: true}},
	})
	require.NoError(t, err)
	require.Equal(t, "Bearer tk_abc", auth)
	require.Equal(t, "owt-me", got["topic"])
	require.Equal(t, "a · app", got["title"])
	require.Equal(t, "a needs you \"quoted\"\x1b[31m", got["message"], "sent as data, JSON-escaped")
	require.EqualValues(t, 4, got["priority"])
	require.Equal(t, "https://example.com/pr/1", got["click"])
	require.Equal(t, []any{map[string]any{"action": "http", "label": "Yes", "url": srv.URL + "/owt-me-reply", "method": "POST", "body": "tok 1", "clear": true}}, got["actions"])
}

// Needs you > finished > exited.
func TestPriorityByKind(t *testing.T) {
	require.Greater(t, ntfy.Priority("waiting"), ntfy.Priority("idle"))
	require.Equal(t, ntfy.Priority("waiting"), ntfy.Priority("needs_you"))
	require.Greater(t, ntfy.Priority("idle"), ntfy.Priority("exited"))
	require.GreaterOrEqual(t, ntfy.Priority("exited"), 2)
	require.LessOrEqual(t, ntfy.Priority("waiting"), 5)
}

// A 4xx is a refusal for good (no retry helps); a 5xx is worth another
// try. Neither says the token.
func TestPublishFailures(t *testing.T) {
	status := 403
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"code":40301,"http":403,"error":"forbidden"}`, status)
	}))
	defer srv.Close()
	t.Setenv("OWT_TEST_NTFY_TOKEN", "tk_wrong")
	s := ntfy.Server{URL: srv.URL, Topic: "t", TokenEnv: "OWT_TEST_NTFY_TOKEN"}
	err := ntfy.Publish(context.Background(), nethttp.Client{}, s, ntfy.Message{Topic: "t", Message: "m"})
	require.ErrorIs(t, err, ntfy.ErrRefused)
	require.Contains(t, err.Error(), "403")
	require.NotContains(t, err.Error(), "tk_wrong")
	status = 500
	err = ntfy.Publish(context.Background(), nethttp.Client{}, s, ntfy.Message{Topic: "t", Message: "m"})
	require.Error(t, err)
	require.NotErrorIs(t, err, ntfy.ErrRefused)
	t.Setenv("OWT_TEST_NTFY_TOKEN", "")
	err = ntfy.Publish(context.Background(), nethttp.Client{}, s, ntfy.Message{Topic: "t", Message: "m"})
	require.ErrorIs(t, err, ntfy.ErrRefused, "an unset token variable is no use retrying")
}

// Subscribe hands over each message once: not those from before it
// started, not again after a reconnect, and it reconnects after the
// server failed, with backoff.
func TestSubscribeReconnectsWithoutReplay(t *testing.T) {
	f := ntfytest.New()
	defer f.Close()
	f.PublishAt("r", "old reply", time.Now().Add(-time.Hour))
	s := ntfy.Server{URL: f.URL, Topic: "t"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 10)
	var fails []error
	var mu sync.Mutex
	go ntfy.Subscribe(ctx, nethttp.Client{}, s, "r", ntfy.Backoff{First: 10 * time.Millisecond, Max: 50 * time.Millisecond},
		func(ev ntfy.Event) { got <- ev.Message },
		func(err error) { mu.Lock(); fails = append(fails, err); mu.Unlock() })
	require.Eventually(t, func() bool { return f.StreamsOpen() == 1 }, 5*time.Second, 10*time.Millisecond)
	f.Publish("r", "first")
	require.Equal(t, "first", <-got)
	// The server drops every stream and fails the next connection.
	f.FailNext = 1
	f.CloseClientConnections()
	require.Eventually(t, func() bool { return f.StreamsOpen() >= 2 }, 5*time.Second, 10*time.Millisecond)
	f.Publish("r", "second")
	require.Equal(t, "second", <-got)
	select {
	case m := <-got:
		t.Fatalf("%q came twice or from before", m)
	case <-time.After(200 * time.Millisecond):
	}
	require.Equal(t, "m00002", f.Sinces[len(f.Sinces)-1], "a reconnect asks for what came after the last message seen")
	require.NotEqual(t, "", f.Sinces[0], "the first connection asks for nothing older than its start")
	mu.Lock()
	require.NotEmpty(t, fails, "the failed connection was told")
	mu.Unlock()
}

// A ticket answers once, only with one of its prompt's keys, and not
// after it expired.
func TestTicketsAnswerOnce(t *testing.T) {
	now := time.Now()
	ts := &ntfy.Tickets{Now: func() time.Time { return now }}
	tok, err := ts.Issue(ntfy.Ticket{Repo: "/r", Agent: "a", Prompt: "p1", Keys: []string{"1", "2", "3"}})
	require.NoError(t, err)
	body := ntfy.ReplyBody(tok, "2")
	gotTok, key, ok := ntfy.ParseReply(body)
	require.True(t, ok)
	require.Equal(t, tok, gotTok)
	_, err = ts.Use(gotTok, "9")
	require.ErrorIs(t, err, ntfy.ErrNotAChoice)
	tk, err := ts.Use(gotTok, key)
	require.NoError(t, err)
	require.Equal(t, "a", tk.Agent)
	_, err = ts.Use(gotTok, key)
	require.ErrorIs(t, err, ntfy.ErrTicketUsed)
	_, err = ts.Use("aaaaaaaaaaaaaaaaaaaaaaaa", "1")
	require.ErrorIs(t, err, ntfy.ErrUnknownTicket)
	tok2, _ := ts.Issue(ntfy.Ticket{Agent: "b", Keys: []string{"1"}})
	now = now.Add(ntfy.TicketLife + time.Minute)
	_, err = ts.Use(tok2, "1")
	require.ErrorIs(t, err, ntfy.ErrTicketExpired)
	for _, bad := range []string{"", tok, tok + " 12", tok + " ;", "x 1", tok + " 1; rm -rf /"} {
		_, _, ok := ntfy.ParseReply(bad)
		require.False(t, ok, "%q", bad)
	}
}
