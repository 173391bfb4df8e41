// Package notify tells the user of an agent's status change through each
// configured channel: the terminal's own notices (OSC 9 / 777), the
// desktop, a webhook, the user's command, and the channels others plug in
// (ntfy). Each channel gets a Notice, data only; the Dispatcher sends it
// to every channel whose filter takes it, each in a goroutine of its own
// with a timeout and a bounded retry, so a slow or dead channel never
// holds up the monitor's tick.
package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// Notice is one thing to tell the user about one agent. Every text field
// may hold words owt did not write (an agent's name, a task, a screen
// line): a channel sends them as data (JSON-escaped, or with control
// characters stripped), never as a command.
type Notice struct {
	// Event is what kind of notice: "status" (a status change),
	// "reaction", "run" (a run's task that needs the user) or "test"
	// (owt notify test).
	Event string
	// Agent, Repo and Host say whose it is (Host is "" for this machine).
	Agent, Repo, Host string
	// Status is the status the notice is about ("waiting", "idle",
	// "exited", "limited", "needs_you"): what the on filters match.
	Status string
	// Reason is why, in a word or a few, where known ("permission",
	// "login", a run's "failed").
	Reason string
	// Text is the whole notice in one line, as the tmux message shows it.
	Text string
	// Time is when it happened.
	Time time.Time
	// Session is the agent's tmux session's name and Pane its pane's id
	// ("%7"), "" when not known (an agent on another host).
	Session, Pane string
	// PR is the URL of the agent's pull request, "" when none.
	PR string
	// Choices are the numbered choices of the prompt the agent waits at,
	// in order, for channels that offer them as actions.
	Choices []string
	// Prompt names the prompt the agent waits at as it stood when the
	// notice was made (its waiting status's start and the dialog's text),
	// "" when none: a reply to the notice answers that prompt only.
	Prompt string
	// Path is the agent's worktree; Run, Task and ExitCode are a run's
	// name, the task's and the agent's exit code ("" when none): what the
	// user's command gets in its environment.
	Path, Run, Task, ExitCode string
}

// Channel is one way to reach the user.
type Channel interface {
	// Name is the channel's name, as [notify.NAME] and owt notify test
	// say it.
	Name() string
	// Send delivers n, or says why not. It returns when ctx ends.
	Send(ctx context.Context, n Notice) error
}

// Route is a channel with what it takes and how hard to try.
type Route struct {
	Channel Channel
	// On lists the statuses whose notices the channel takes.
	On []string
	// Timeout bounds each attempt; 0 is DefaultTimeout.
	Timeout time.Duration
	// Retries is how many more attempts follow a failed one (not one
	// that is Permanent).
	Retries int
}

// DefaultTimeout bounds one attempt of a route that sets none.
const DefaultTimeout = 10 * time.Second

// Takes reports whether the route's channel takes a notice of status.
func (r Route) Takes(status string) bool { return slices.Contains(r.On, status) }

// permanent is an error no retry mends (a 4xx answer, a bad config).
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent marks err as one that trying again cannot mend.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanent{err}
}

// IsPermanent reports whether err was marked Permanent.
func IsPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

// Deliver sends n through r's channel: each attempt bounded by r's
// timeout, up to r.Retries more after a failure that is not Permanent,
// the first backoff after the first failure, doubling. It returns the
// last attempt's error.
func Deliver(ctx context.Context, r Route, n Notice, backoff time.Duration) error {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var err error
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, timeout)
		err = r.Channel.Send(actx, n)
		cancel()
		if err == nil || IsPermanent(err) || errors.Is(err, ErrSkipped) || attempt >= r.Retries {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up after %d attempt(s): %v)", err, attempt+1, ctx.Err())
		case <-time.After(backoff << attempt):
		}
	}
	if err != nil && r.Retries > 0 && !IsPermanent(err) && !errors.Is(err, ErrSkipped) {
		return fmt.Errorf("%w (after %d attempts)", err, r.Retries+1)
	}
	return err
}

// ErrSkipped is a channel that had nothing to do with a notice (no
// terminal to show it): not sent, and no failure. Errors wrapping it are
// not retried and not logged.
var ErrSkipped = errors.New("skipped")

// ErrQueueFull is a notice dropped because too many are still being sent.
var ErrQueueFull = errors.New("dropped: too many notices still being sent")

// QueueSize is how many deliveries a Dispatcher has going at once on
// one channel; past it, a notice to that channel is dropped with a log
// line rather than waited for. Each channel has its own: a dead webhook
// (each of its notices held ~33 s by its tries) never takes the terminal's
// or the desktop's turn.
const QueueSize = 64

// Dispatcher sends notices through routes in the background.
type Dispatcher struct {
	// Failed is told each delivery that failed, once (after its retries),
	// and each one dropped: one log line each. Its error never holds a
	// channel's secret (a token, a webhook URL's path).
	Failed func(n Notice, channel string, err error)
	// Backoff is the wait after a first failed attempt (doubling);
	// 0 is a second.
	Backoff time.Duration

	mu    sync.Mutex
	slots map[string]chan struct{} // by channel name
	wg    sync.WaitGroup
}

// slotsOf is the channel name's slots.
func (d *Dispatcher) slotsOf(name string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.slots == nil {
		d.slots = map[string]chan struct{}{}
	}
	s, ok := d.slots[name]
	if !ok {
		s = make(chan struct{}, QueueSize)
		d.slots[name] = s
	}
	return s
}

// Dispatch sends n through every route that takes its status, each in a
// goroutine of its own, and returns at once.
func (d *Dispatcher) Dispatch(routes []Route, n Notice) {
	backoff := d.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	for _, r := range routes {
		if !r.Takes(n.Status) {
			continue
		}
		slots := d.slotsOf(r.Channel.Name())
		select {
		case slots <- struct{}{}:
		default:
			d.failed(n, r.Channel.Name(), ErrQueueFull)
			continue
		}
		d.wg.Add(1)
		go func(r Route) {
			defer d.wg.Done()
			defer func() { <-slots }()
			if err := Deliver(context.Background(), r, n, backoff); err != nil && !errors.Is(err, ErrSkipped) {
				d.failed(n, r.Channel.Name(), err)
			}
		}(r)
	}
}

// Wait waits for every delivery under way.
func (d *Dispatcher) Wait() { d.wg.Wait() }

func (d *Dispatcher) failed(n Notice, channel string, err error) {
	if d.Failed != nil {
		d.Failed(n, channel, err)
	}
}

// plainLine is text as one inert line of at most max bytes: bytes that
// are no UTF-8 (a lone 0x9c is ST to some terminals), escape sequences
// and control characters gone, line breaks made spaces, cut
// at a rune with " …".
func plainLine(text string, max int) string {
	line := strings.TrimSpace(untrusted.CleanLine(untrusted.StripEscapes(strings.ToValidUTF8(text, ""))))
	if len(line) > max {
		line = strings.ToValidUTF8(line[:max], "") + " …"
	}
	return line
}
