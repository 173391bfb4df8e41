package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func init() { register("webhook", webhookRoute) }

// webhookChannel POSTs each notice to a URL as JSON: owt's own body, or
// the one Slack's or Discord's incoming webhooks take.
type webhookChannel struct {
	url, format string
	http        httpcall.Doer
}

// webhookTimeout bounds one POST; webhookRetries more follow a failure
// the server may mend (no answer, 429, 5xx).
const (
	webhookTimeout = 10 * time.Second
	webhookRetries = 2
)

func webhookRoute(cfg config.Notify, deps Deps) (Route, bool) {
	w := cfg.Webhook
	if w.URL == "" {
		return Route{}, false
	}
	format := w.Format
	if format == "" {
		format = "json"
	}
	return Route{Channel: webhookChannel{url: w.URL, format: format, http: deps.http()},
		On: on(w.On, cfg), Timeout: webhookTimeout, Retries: webhookRetries}, true
}

func (webhookChannel) Name() string { return "webhook" }

// WebhookBody is the JSON body of format = "json", as documented in the
// notifications guide.
type WebhookBody struct {
	Event  string `json:"event"`
	Agent  string `json:"agent"`
	Repo   string `json:"repo"`
	Host   string `json:"host"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	Text   string `json:"text"`
	Time   string `json:"time"` // RFC 3339, UTC
	PR     string `json:"pr"`
}

// chatMax bounds a chat message's text (Discord takes 2000 characters).
const chatMax = 1900

// webhookBody is n as format says it. Every field is data: JSON escapes
// it; a chat's text also loses its control characters, Slack's <, > and
// & are escaped (no mention or link made of an agent's words), and
// Discord is told to ping no one.
func webhookBody(format string, n Notice) ([]byte, error) {
	text := plainLine(n.Text, chatMax)
	switch format {
	case "slack":
		esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(text)
		return json.Marshal(map[string]any{"text": esc})
	case "discord":
		return json.Marshal(map[string]any{"content": text, "allowed_mentions": map[string]any{"parse": []string{}}})
	}
	return json.Marshal(WebhookBody{
		Event: n.Event, Agent: n.Agent, Repo: n.Repo, Host: n.Host, Status: n.Status, Reason: n.Reason,
		Text: n.Text, Time: n.Time.UTC().Format(time.RFC3339), PR: n.PR,
	})
}

func (w webhookChannel) Send(ctx context.Context, n Notice) error {
	body, err := webhookBody(w.format, n)
	if err != nil {
		return Permanent(fmt.Errorf("webhook body: %w", err))
	}
	timeout := webhookTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	resp, err := w.http.Do(ctx, httpcall.Request{Method: "POST", URL: w.url,
		Header: map[string]string{"Content-Type": "application/json"}, Body: body, Timeout: timeout})
	if err != nil {
		return err // httpcall's errors name the URL's scheme and host only
	}
	if resp.Status >= 300 {
		err := fmt.Errorf("POST %s: %w", httpcall.Redact(w.url), &httpcall.StatusError{Status: resp.Status, Body: untrusted.ShortLine(httpcall.Scrub(string(resp.Body), w.url), 200)})
		if resp.Status == 429 || resp.Status >= 500 {
			return err
		}
		return Permanent(err)
	}
	return nil
}
