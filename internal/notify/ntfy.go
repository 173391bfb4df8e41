package notify

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func init() { register("ntfy", ntfyRoute) }

// ntfyChannel publishes each notice to a ntfy topic; with replies on, a
// prompt's notice carries one button per choice (up to ntfy's three),
// each publishing its ticket's token and the choice's key to the reply
// topic, which owt's monitor follows.
type ntfyChannel struct {
	server  ntfy.Server
	http    httpcall.Doer
	tickets *ntfy.Tickets // nil: no buttons
}

// ntfyRetries more attempts follow a failure the server may mend.
const ntfyRetries = 2

// NtfyServer is the server [notify.ntfy] names, its reply topic set only
// when replies are on.
func NtfyServer(c config.NotifyNtfy) ntfy.Server {
	s := ntfy.Server{URL: c.URL, Topic: c.Topic, TokenEnv: c.TokenEnv}
	if s.URL == "" {
		s.URL = ntfy.DefaultURL
	}
	if c.Reply {
		s.ReplyTopic = c.ReplyTopicOr()
	}
	return s
}

func ntfyRoute(cfg config.Notify, deps Deps) (Route, bool) {
	c := cfg.Ntfy
	if c.Topic == "" {
		return Route{}, false
	}
	ch := ntfyChannel{server: NtfyServer(c), http: deps.http()}
	if c.Reply {
		ch.tickets = deps.Tickets
	}
	return Route{Channel: ch, On: on(c.On, cfg), Timeout: ntfy.Timeout, Retries: ntfyRetries}, true
}

func (ntfyChannel) Name() string { return "ntfy" }

// Send publishes n. A refusal (a 4xx, a token variable that is not set)
// is permanent; anything else may be tried again.
func (c ntfyChannel) Send(ctx context.Context, n Notice) error {
	m, err := c.message(n)
	if err != nil {
		return Permanent(err)
	}
	err = ntfy.Publish(ctx, c.http, c.server, m)
	if errors.Is(err, ntfy.ErrRefused) {
		return Permanent(err)
	}
	return err
}

// ntfyLabel bounds a button's words (a phone shows a few).
const ntfyLabel = 30

// message is n as ntfy shows it: the agent and its repository as the
// title, the notice's words as the message (control characters gone),
// priority and tags by status, the pull request as the click, and the
// prompt's choices as buttons when replies are on.
func (c ntfyChannel) message(n Notice) (ntfy.Message, error) {
	title := n.Agent
	if n.Repo != "" {
		title += " · " + filepath.Base(n.Repo)
	}
	if n.Host != "" {
		title += " @ " + n.Host
	}
	m := ntfy.Message{
		Topic:    c.server.Topic,
		Title:    untrusted.ShortLine(untrusted.StripEscapes(title), 120),
		Message:  untrusted.ShortLine(untrusted.StripEscapes(strings.TrimPrefix(n.Text, "owt: ")), 1000),
		Priority: ntfy.Priority(n.Status),
		Tags:     ntfy.Tags(n.Status),
	}
	if strings.HasPrefix(n.PR, "https://") || strings.HasPrefix(n.PR, "http://") {
		m.Click = n.PR
	}
	if c.tickets == nil || c.server.ReplyTopic == "" || n.Prompt == "" || len(n.Choices) == 0 || n.Status != "waiting" {
		return m, nil
	}
	choices := n.Choices
	if len(choices) > ntfy.MaxActions {
		choices = choices[:ntfy.MaxActions]
	}
	keys := make([]string, len(choices))
	for i := range choices {
		keys[i] = strconv.Itoa(i + 1)
	}
	token, err := c.tickets.Issue(ntfy.Ticket{Repo: n.Repo, Agent: n.Agent, Prompt: n.Prompt, Keys: keys, Server: c.server})
	if err != nil {
		return m, err
	}
	for i, label := range choices {
		m.Actions = append(m.Actions, ntfy.Action{
			Action: "http", Label: buttonLabel(label),
			URL: c.server.TopicURL(c.server.ReplyTopic), Method: "POST",
			Body: ntfy.ReplyBody(token, keys[i]), Clear: true,
		})
	}
	return m, nil
}

// buttonLabel is a choice's words for a button: control characters and
// runs of spaces gone, cut at a word's end to fit ntfyLabel.
func buttonLabel(label string) string {
	words := strings.Fields(untrusted.CleanLine(untrusted.StripEscapes(label)))
	out := ""
	for _, w := range words {
		next := w
		if out != "" {
			next = out + " " + w
		}
		if len([]rune(next)) > ntfyLabel-1 {
			if out == "" {
				return string([]rune(w)[:ntfyLabel-1]) + "…"
			}
			return out + "…"
		}
		out = next
	}
	return out
}
