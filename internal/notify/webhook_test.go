package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/stretchr/testify/require"
)

// receiver is a webhook receiver on loopback that answers codes in turn
// (then 204) and keeps each body.
type receiver struct {
	mu     sync.Mutex
	codes  []int
	bodies [][]byte
	types  []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.bodies = append(rc.bodies, b)
	rc.types = append(rc.types, r.Method+" "+r.Header.Get("Content-Type"))
	code := http.StatusNoContent
	if len(rc.codes) > 0 {
		code, rc.codes = rc.codes[0], rc.codes[1:]
	}
	w.WriteHeader(code)
}

func webhookFor(t *testing.T, rc *receiver, format string) (Route, string) {
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	cfg := config.Defaults().Notify
	cfg.Webhook.URL = srv.URL + "/hooks/SECRET-PART"
	cfg.Webhook.Format = format
	r, ok := webhookRoute(cfg, Deps{HTTP: nethttp.Client{}})
	require.True(t, ok)
	return r, srv.URL
}

var hostile = Notice{
	Event: "status", Agent: "a\"<@everyone>\x1b]0;x\x07", Repo: "/r", Status: "waiting", Reason: "permission",
	Text: "owt: a\"<@everyone>\x1b]0;x\x07 needs you & more", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	PR: "https://example.invalid/pr/1",
}

// format = "json" POSTs the documented body, every field data.
func TestWebhookPostsTheDocumentedJSON(t *testing.T) {
	rc := &receiver{}
	r, _ := webhookFor(t, rc, "json")
	require.NoError(t, Deliver(context.Background(), r, hostile, time.Millisecond))
	require.Len(t, rc.bodies, 1)
	require.Equal(t, "POST application/json", rc.types[0])
	var got map[string]any
	require.NoError(t, json.Unmarshal(rc.bodies[0], &got))
	require.Equal(t, map[string]any{
		"event": "status", "agent": hostile.Agent, "repo": "/r", "host": "", "status": "waiting", "reason": "permission",
		"text": hostile.Text, "time": "2026-01-02T03:04:05Z", "pr": "https://example.invalid/pr/1",
	}, got)
	require.NotContains(t, string(rc.bodies[0]), "\x1b", "escaped, not raw")
}

// Slack gets {"text"} with <, >, & escaped and no controls; Discord gets
// {"content"} and pings no one.
func TestWebhookSlackAndDiscordBodies(t *testing.T) {
	rc := &receiver{}
	r, _ := webhookFor(t, rc, "slack")
	require.NoError(t, Deliver(context.Background(), r, hostile, time.Millisecond))
	var slack map[string]any
	require.NoError(t, json.Unmarshal(rc.bodies[0], &slack))
	require.Equal(t, `owt: a"&lt;@everyone&gt; needs you &amp; more`, slack["text"])
	require.Len(t, slack, 1)

	rc = &receiver{}
	r, _ = webhookFor(t, rc, "discord")
	require.NoError(t, Deliver(context.Background(), r, hostile, time.Millisecond))
	var discord map[string]any
	require.NoError(t, json.Unmarshal(rc.bodies[0], &discord))
	require.Equal(t, `owt: a"<@everyone> needs you & more`, discord["content"])
	require.Equal(t, map[string]any{"parse": []any{}}, discord["allowed_mentions"])
}

// A 500 or 429 is tried again (twice at most); a 4xx is not; the error
// never shows the URL's path.
func TestWebhookRetriesWhatTheServerMayMend(t *testing.T) {
	rc := &receiver{codes: []int{500, 429}}
	r, _ := webhookFor(t, rc, "json")
	require.NoError(t, Deliver(context.Background(), r, hostile, time.Millisecond))
	require.Len(t, rc.bodies, 3)

	rc = &receiver{codes: []int{500, 500, 500, 500}}
	r, base := webhookFor(t, rc, "json")
	err := Deliver(context.Background(), r, hostile, time.Millisecond)
	require.ErrorContains(t, err, "500")
	require.Len(t, rc.bodies, 3, "two retries, no more")
	require.Contains(t, err.Error(), base)
	require.NotContains(t, err.Error(), "SECRET")

	rc = &receiver{codes: []int{404}}
	r, _ = webhookFor(t, rc, "json")
	err = Deliver(context.Background(), r, hostile, time.Millisecond)
	require.ErrorContains(t, err, "404")
	require.Len(t, rc.bodies, 1)

	// Nobody listening: the error names the host, not the path.
	cfg := config.Defaults().Notify
	cfg.Webhook.URL = "http://127.0.0.1:1/hooks/SECRET-PART"
	r, _ = webhookRoute(cfg, Deps{HTTP: nethttp.Client{}})
	r.Retries = 0
	err = Deliver(context.Background(), r, hostile, time.Millisecond)
	require.Error(t, err)
	require.False(t, strings.Contains(err.Error(), "SECRET"), err.Error())
}
