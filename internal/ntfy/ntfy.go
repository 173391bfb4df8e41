// Package ntfy speaks to a ntfy server (ntfy.sh or one's own) as owt
// uses it: it publishes a notice as ntfy's JSON message (title, priority,
// tags, a click URL, action buttons), follows a reply topic's JSON stream
// (reconnecting with backoff, never replaying what came before it
// started), and keeps the one-shot tickets that let a reply answer the
// one prompt its notice was about. Requests go through httpcall, so owt
// links no net/http.
package ntfy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/httpcall"
)

// DefaultURL is the public server.
const DefaultURL = "https://ntfy.sh"

// Server is a ntfy server and what owt publishes to on it.
type Server struct {
	URL   string // the server's root, e.g. https://ntfy.sh
	Topic string // where notices go
	// ReplyTopic is where the phone's buttons publish replies ("" when
	// replies are off).
	ReplyTopic string
	// TokenEnv names the environment variable holding an access token
	// ("" for none); the token is read where the request is made.
	TokenEnv string
}

// root is the server's URL without a trailing slash.
func (s Server) root() string {
	u := strings.TrimRight(s.URL, "/")
	if u == "" {
		u = DefaultURL
	}
	return u
}

// TopicURL is the URL of topic on the server (what a reply button POSTs to).
func (s Server) TopicURL(topic string) string {
	return s.root() + "/" + url.PathEscape(topic)
}

// Action is one button of a notice (ntfy's action: "view" opens a URL,
// "http" makes a request from the phone).
type Action struct {
	Action string `json:"action"`
	Label  string `json:"label"`
	URL    string `json:"url"`
	Method string `json:"method,omitempty"`
	Body   string `json:"body,omitempty"`
	Clear  bool   `json:"clear,omitempty"`
}

// MaxActions is how many buttons ntfy shows on a notice.
const MaxActions = 3

// Message is a notice as ntfy's JSON publish takes it (POST to the
// server's root).
type Message struct {
	Topic    string   `json:"topic"`
	Title    string   `json:"title,omitempty"`
	Message  string   `json:"message"`
	Priority int      `json:"priority,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Click    string   `json:"click,omitempty"`
	Actions  []Action `json:"actions,omitempty"`
}

// Priorities, ntfy's 1 (min) to 5 (max).
const (
	PriorityMin     = 1
	PriorityLow     = 2
	PriorityDefault = 3
	PriorityHigh    = 4
	PriorityMax     = 5
)

// Priority is a notice's priority by the status it tells: an agent that
// needs the user comes first, a finished turn next, an exit last.
func Priority(status string) int {
	switch status {
	case "waiting", "needs_you":
		return PriorityHigh
	case "idle", "limited":
		return PriorityDefault
	case "exited":
		return PriorityLow
	}
	return PriorityDefault
}

// Tags are the ntfy tags (shown as emoji) of a status.
func Tags(status string) []string {
	switch status {
	case "waiting", "needs_you":
		return []string{"raising_hand"}
	case "idle":
		return []string{"white_check_mark"}
	case "limited":
		return []string{"hourglass"}
	case "exited":
		return []string{"stop_sign"}
	}
	return nil
}

// Timeout bounds one publish.
const Timeout = 10 * time.Second

// ErrRefused: the server refused the message for good (a 4xx: a bad
// topic, a token it does not take); trying again will not help.
var ErrRefused = errors.New("the ntfy server refused it")

// notSent is a message owt could not send at all (its token's variable
// is not set): as final as ErrRefused, which it is to errors.Is, but
// said as what happened.
type notSent struct{ err error }

func (e notSent) Error() string   { return "ntfy: not sent: " + e.err.Error() }
func (e notSent) Unwrap() []error { return []error{e.err, ErrRefused} }

// Publish sends m to the server. A 4xx answer wraps ErrRefused (no use
// trying again); a 5xx or a network error is worth another try.
func Publish(ctx context.Context, d httpcall.Doer, s Server, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("ntfy: %w", err)
	}
	resp, err := d.Do(ctx, httpcall.Request{
		Method: "POST", URL: s.root() + "/", Header: map[string]string{"Content-Type": "application/json"},
		BearerEnv: s.TokenEnv, Body: body, Timeout: Timeout,
	})
	if err != nil {
		if errors.Is(err, httpcall.ErrNoBearer) || strings.Contains(err.Error(), httpcall.ErrNoBearer.Error()) {
			// No request went out: not the server's refusal, but no use
			// trying again either.
			return notSent{err}
		}
		return fmt.Errorf("ntfy: %w", err)
	}
	if resp.Status >= 400 && resp.Status < 500 {
		return fmt.Errorf("ntfy (%s): %w: %w", httpcall.Redact(s.root()), ErrRefused, &httpcall.StatusError{Status: resp.Status, Body: errorText(resp.Body)})
	}
	if resp.Status >= 300 {
		return fmt.Errorf("ntfy (%s): %w", httpcall.Redact(s.root()), &httpcall.StatusError{Status: resp.Status, Body: errorText(resp.Body)})
	}
	return nil
}

// errorText is the "error" of ntfy's JSON error answer, or "".
func errorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		return e.Error
	}
	return ""
}
