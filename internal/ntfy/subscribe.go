package ntfy

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/owt-tmux/owt/internal/httpcall"
)

// Event is one line of a topic's JSON stream.
type Event struct {
	ID      string `json:"id"`
	Time    int64  `json:"time"`
	Event   string `json:"event"` // "open", "keepalive", "message", "poll_request"
	Topic   string `json:"topic"`
	Message string `json:"message"`
}

// Backoff is the wait before each reconnect: it doubles from First up
// to Max, and starts again from First once a stream was open.
type Backoff struct{ First, Max time.Duration }

// DefaultBackoff waits 1 s, 2 s, 4 s … up to 2 minutes.
var DefaultBackoff = Backoff{First: time.Second, Max: 2 * time.Minute}

// Subscribe follows topic's JSON stream (GET /<topic>/json) until ctx
// ends, handing each message to handle. It reconnects when the stream
// breaks, waiting per backoff, and asks each time only for what came
// after the last message it saw (since=<id>), or, before any, after the
// moment it started (since=<unix time>): an old reply is never played
// again. fail is told each failed connection (for one log line); it
// returns when ctx ends.
func Subscribe(ctx context.Context, d httpcall.Doer, s Server, topic string, backoff Backoff, handle func(Event), fail func(error)) {
	since := strconv.FormatInt(time.Now().Unix(), 10)
	wait := backoff.First
	for ctx.Err() == nil {
		opened := false
		err := d.Stream(ctx, httpcall.Request{
			Method: "GET", URL: s.TopicURL(topic) + "/json?since=" + since,
			BearerEnv: s.TokenEnv, Timeout: Timeout,
		}, func(line []byte) bool {
			var ev Event
			if json.Unmarshal(line, &ev) != nil {
				return true
			}
			opened = true
			if ev.Event == "message" {
				if ev.ID != "" {
					since = ev.ID
				}
				handle(ev)
			}
			return true
		})
		if ctx.Err() != nil {
			return
		}
		if opened {
			wait = backoff.First
		}
		if err != nil && fail != nil {
			fail(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, backoff.Max)
	}
}
