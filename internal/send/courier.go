// The courier types the messages of the outbox into the panes of the
// agents they are for: the monitor of each tmux server runs one Courier.
// The queue itself (what is owed, held, delivered) is outbox's.

package send

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/owtlog"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Courier delivers the outbox of one tmux server's agents: the monitor of
// that server calls Tick once a tick. Each delivery runs in the
// background, one per agent at a time, so a slow agent never holds the
// monitor's tick.
type Courier struct {
	Box outbox.Box
	// Socket is the tmux server of the monitor: an agent on another
	// server is that server's to reach.
	Socket string
	Tmux   *tmux.Client
	// Log writes one entry of owt.log about the repository and agent
	// named in f.
	Log func(f owtlog.Fields, format string, args ...any)
	// Viewed reports whether a client is on a pane, as the monitor's
	// snapshot of this tick saw it (no tmux call of its own).
	Viewed func(pane string) bool

	dirMod  time.Time      // the box dir's mtime at the last listing
	pending []outbox.Agent // the agents with queued messages at the last listing

	mu      sync.Mutex
	busy    map[outbox.Agent]bool      // deliveries under way
	retryAt map[outbox.Agent]time.Time // held by text in the input box: not tried again before
}

// HeldByDraft is why a queued message waits while the agent's input box
// holds text owt did not type (the user's draft): typed after it, the
// message would be glued to it.
const HeldByDraft = InputHeld

// draftRetry is how long a message held by a draft waits before owt
// looks at the input box again.
const draftRetry = 3 * time.Second

// rescanWithin: a dir changed this recently is listed again even if its
// mtime looks the same, as two writes can share a timestamp.
const rescanWithin = 2 * time.Second

// Tick delivers what it can. With nothing queued it costs one stat.
func (c *Courier) Tick(now time.Time) {
	fi, err := os.Stat(c.Box.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		c.logf(outbox.Agent{}, "outbox: %v", err)
		return
	}
	mod := fi.ModTime()
	if mod.Equal(c.dirMod) && len(c.pending) == 0 && now.Sub(mod) > rescanWithin {
		return
	}
	c.dirMod = mod
	if c.pending, err = c.Box.Pending(); err != nil {
		c.logf(outbox.Agent{}, "outbox: %v", err)
	}
	if len(c.pending) == 0 {
		return
	}
	for _, a := range c.pending {
		if c.isBusy(a) || now.Before(c.retryTime(a)) {
			continue
		}
		rec, ok := c.record(a)
		if !ok || !c.mine(rec) {
			continue
		}
		if gone := goneWhy(rec); gone != "" {
			c.drop(a, gone)
			continue
		}
		if !outbox.Ready(rec) {
			continue // not now: working, waiting for the user, or starting
		}
		if c.Viewed != nil && c.Viewed(rec.Pane) {
			if err := c.Box.Hold(a, outbox.HeldByUser); err != nil {
				c.logf(a, "outbox %s: %v", a.Name, err)
			}
			continue
		}
		if err := c.Box.Hold(a, ""); err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		}
		c.setBusy(a, true)
		go c.deliver(a, rec)
	}
}

// deliver sends a's queued messages as one paste through owt send's path
// and settles them: delivered when the agent took it, undeliverable with
// the reason otherwise. An agent that turned busy meanwhile keeps them.
func (c *Courier) deliver(a outbox.Agent, rec *state.Record) {
	defer c.setBusy(a, false)
	if since := outbox.Since(rec); !since.IsZero() {
		// A record from before lives shares its name's file with the
		// agents of that name an older owt deleted: theirs are not its.
		if n, err := c.Box.AbandonBefore(a, since, outbox.ForDeleted); err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		} else if n > 0 {
			c.logf(a, "outbox %s: %d message(s) undeliverable: queued before it was made, for an earlier agent of its name", a.Name, n)
		}
	}
	msgs, err := c.Box.Take(a, time.Now()) // no longer withdrawn: typed, or given back
	if err != nil || len(msgs) == 0 {
		if err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		}
		return
	}
	// OpenRoot: a .owt.toml with a problem falls back to the defaults
	// (reported elsewhere) rather than losing the messages.
	w, err := workspace.OpenRoot(a.Repo, c.Tmux)
	if w == nil {
		c.settle(a, msgs, outbox.Undeliverable, time.Time{}, err.Error())
		return
	}
	sentAt := time.Now()
	err = To(w, rec, untrusted.From(outbox.Join(msgs)), Options{OnlyIdle: true})
	switch {
	case err == nil:
		c.settle(a, msgs, outbox.Delivered, sentAt, "")
	case errors.Is(err, ErrInputHeld):
		// The user's draft in the box: kept, and said, until it is gone.
		if err := c.Box.Release(a, msgs); err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		}
		if err := c.Box.Hold(a, HeldByDraft); err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		}
		c.setRetry(a, time.Now().Add(draftRetry))
	case errors.Is(err, ErrNotReady):
		// It waits for the user now: the next idle turn gets them.
		if err := c.Box.Release(a, msgs); err != nil {
			c.logf(a, "outbox %s: %v", a.Name, err)
		}
	default:
		c.settle(a, msgs, outbox.Undeliverable, sentAt, err.Error())
	}
}

func (c *Courier) settle(a outbox.Agent, msgs []outbox.Message, to outbox.State, at time.Time, why string) {
	if err := c.Box.Settle(a, msgs, to, at, why); err != nil {
		c.logf(a, "outbox %s: %v", a.Name, err)
		return
	}
	if to == outbox.Delivered {
		c.logf(a, "outbox %s: delivered %d message(s)", a.Name, len(msgs))
	} else {
		c.logf(a, "outbox %s: %d message(s) %s: %s", a.Name, len(msgs), to, why)
	}
}

// record is a's worktree record; a gone worktree's messages are dropped
// as undeliverable, and false is returned for both.
func (c *Courier) record(a outbox.Agent) (*state.Record, bool) {
	f, err := state.ForRepo(a.Repo).Peek()
	if err != nil {
		c.logf(a, "outbox %s: %v", a.Name, err)
		return nil, false
	}
	rec := f.Records[a.Name]
	if rec == nil {
		c.drop(a, "its worktree is gone")
		return nil, false
	}
	if rec.Life != a.Life {
		// The agent they were for was deleted, and this is another one
		// given its name: they are not its.
		c.drop(a, outbox.ForDeleted+" ("+a.Name+" now is another agent)")
		return nil, false
	}
	return rec, true
}

// goneWhy says why an agent can never take a message, "" if it can.
func goneWhy(rec *state.Record) string {
	switch {
	case rec.NoAgent:
		return "it was created with --no-agent"
	case rec.Status == state.Exited:
		return "the agent exited"
	}
	return ""
}

// drop settles every queued message of a as undeliverable.
func (c *Courier) drop(a outbox.Agent, why string) {
	msgs, err := c.Box.Queued(a)
	if err != nil {
		c.logf(a, "outbox %s: %v", a.Name, err)
		return
	}
	c.settle(a, msgs, outbox.Undeliverable, time.Time{}, why)
}

// mine reports whether rec's agent lives on this courier's server.
func (c *Courier) mine(rec *state.Record) bool {
	return rec.Socket == "" || rec.Socket == c.Socket
}

func (c *Courier) retryTime(a outbox.Agent) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retryAt[a]
}

func (c *Courier) setRetry(a outbox.Agent, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.retryAt == nil {
		c.retryAt = map[outbox.Agent]time.Time{}
	}
	c.retryAt[a] = at
}

func (c *Courier) isBusy(a outbox.Agent) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busy[a]
}

func (c *Courier) setBusy(a outbox.Agent, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy == nil {
		c.busy = map[outbox.Agent]bool{}
	}
	if on {
		c.busy[a] = true
	} else {
		delete(c.busy, a)
	}
}

// logf logs about agent a (the zero Agent: about no agent).
func (c *Courier) logf(a outbox.Agent, format string, args ...any) {
	if c.Log != nil {
		c.Log(owtlog.Fields{Repo: a.Repo, Agent: a.Name, Event: "outbox"}, format, args...)
	}
}
