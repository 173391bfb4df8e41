package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
)

// Result is what owt notify test saw of one channel.
type Result struct {
	Channel string `json:"channel"`
	// Result is "sent", "failed", "skipped" (the channel had nothing to
	// do: no terminal known to show notices) or "off" (not configured).
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
}

// Failed reports whether any result is a failure, or a channel asked for
// by name that is off.
func Failed(rs []Result) bool {
	for _, r := range rs {
		if r.Result == "failed" || r.Result == "off" {
			return true
		}
	}
	return false
}

// UnknownChannelError is a channel name owt does not have.
type UnknownChannelError struct{ Name string }

func (e UnknownChannelError) Error() string {
	return fmt.Sprintf("no channel %q: one of %s", e.Name, strings.Join(Names, ", "))
}

// Sample is the notice owt notify test sends.
func Sample(repo string) Notice {
	return Notice{
		Event: "test", Agent: "owt-test", Repo: repo, Status: "waiting", Reason: "test",
		Text: "owt: this is a test notice (owt notify test)", Time: time.Now(),
	}
}

// Test sends n through each channel cfg turns on, or only the one named
// (name not ""), at once and without retries, and says what happened to
// each, in Names order. Every channel is tried, whatever its on filter.
func Test(ctx context.Context, cfg config.Notify, deps Deps, name string, n Notice) ([]Result, error) {
	if name != "" && !slices.Contains(Names, name) {
		return nil, UnknownChannelError{name}
	}
	routes := Configured(cfg, deps)
	if name != "" {
		var one []Route
		for _, r := range routes {
			if r.Channel.Name() == name {
				one = append(one, r)
			}
		}
		if len(one) == 0 {
			return []Result{{Channel: name, Result: "off", Error: "not configured: " + offWhy(name)}}, nil
		}
		routes = one
	}
	rs := make([]Result, len(routes))
	var wg sync.WaitGroup
	for i, r := range routes {
		wg.Add(1)
		go func(i int, r Route) {
			defer wg.Done()
			r.Retries = 0
			err := Deliver(ctx, r, n, 0)
			res := Result{Channel: r.Channel.Name(), Result: "sent"}
			switch {
			case errors.Is(err, ErrSkipped):
				res.Result, res.Error = "skipped", strings.TrimPrefix(err.Error(), ErrSkipped.Error()+": ")
			case err != nil:
				res.Result, res.Error = "failed", err.Error()
			}
			rs[i] = res
		}(i, r)
	}
	wg.Wait()
	return rs, nil
}

// offWhy says what turns a channel on.
func offWhy(name string) string {
	switch name {
	case "terminal":
		return "[notify.terminal] osc is \"off\" (or no tmux server runs)"
	case "desktop":
		return "set [notify.desktop] enabled = true"
	case "command":
		return "[notify] command is empty"
	case "webhook":
		return "[notify.webhook] url is empty"
	}
	return "see [notify." + name + "]"
}
