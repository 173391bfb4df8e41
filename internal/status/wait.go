package status

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// WaitUntil names what owt wait waits for.
type WaitUntil string

// What owt wait can wait for; Any is any status that is not work in
// progress: idle, waiting or exited.
const (
	UntilIdle    WaitUntil = "idle"
	UntilWaiting WaitUntil = "waiting"
	UntilExited  WaitUntil = "exited"
	UntilAny     WaitUntil = "any"
)

// ParseUntil checks a --until value.
func ParseUntil(s string) (WaitUntil, error) {
	switch u := WaitUntil(s); u {
	case UntilIdle, UntilWaiting, UntilExited, UntilAny:
		return u, nil
	}
	return "", fmt.Errorf("--until must be idle, waiting, exited or any, not %q", s)
}

// Reached reports whether status s is what u waits for.
func (u WaitUntil) Reached(s state.Status) bool {
	switch u {
	case UntilAny:
		return s == state.Idle || s.NeedsYou() || s == state.Exited
	case UntilWaiting:
		return s.NeedsYou() // a usage limit needs you as a question does
	default:
		return s == state.Status(u)
	}
}

// WaitResult is where one agent stood when owt wait ended.
type WaitResult struct {
	Name     string    `json:"name"`
	Status   string    `json:"status"`
	Since    time.Time `json:"since"`
	ExitCode *int      `json:"exit_code,omitempty"`
	Reached  bool      `json:"reached"`
	// Never is set when the agent can no longer get there: it exited.
	Never bool `json:"never,omitempty"`
	// Host is the host of an agent there ("" here); Unreachable says the
	// host did not answer: Status is the last one known, never "exited"
	// for it, and it is neither reached nor never.
	Host        string `json:"host,omitempty"`
	Unreachable bool   `json:"unreachable,omitempty"`
}

// Elsewhere is a source of agents owt wait waits on beside the ledger's
// (agents on hosts): Look says where each stands now, its Reached and
// Never set by u; it is asked at most every Every.
type Elsewhere struct {
	Look  func(u WaitUntil) []WaitResult
	Every time.Duration
}

// waitPoll is how often owt wait reads the state file.
const waitPoll = 200 * time.Millisecond

// Wait waits until every named agent has reached u, one has exited while
// waiting for something else (it never will), or timeout passes (0 waits
// forever). Every name must exist. The results say who got there.
func Wait(w *workspace.Ledger, names []string, u WaitUntil, timeout time.Duration) ([]WaitResult, error) {
	return WaitWith(w, names, u, timeout, nil)
}

// WaitWith is Wait over the ledger's agents called names and, when other
// is set, the agents it tells of: done when none of all of them can still
// change to what is waited for.
func WaitWith(w *workspace.Ledger, names []string, u WaitUntil, timeout time.Duration, other *Elsewhere) ([]WaitResult, error) {
	for _, n := range names {
		if _, err := w.Get(n); err != nil {
			return nil, err
		}
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	var there []WaitResult
	var looked time.Time
	for {
		f, err := w.Store.Load()
		if err != nil {
			return nil, err
		}
		results, done := waitResults(f, names, u)
		if other != nil {
			if looked.IsZero() || time.Since(looked) >= other.Every {
				there, looked = other.Look(u), time.Now()
			}
			for _, r := range there {
				done = done && (r.Reached || r.Never)
			}
			results = append(results, there...)
		}
		if done || !deadline.IsZero() && !time.Now().Before(deadline) {
			return results, nil
		}
		time.Sleep(waitPoll)
	}
}

// waitResults reads where each agent stands; done when none can still
// change to what is waited for.
func waitResults(f *state.File, names []string, u WaitUntil) ([]WaitResult, bool) {
	out := make([]WaitResult, 0, len(names))
	done := true
	for _, n := range names {
		res := WaitResult{Name: n, Status: "gone"}
		if r, ok := f.Records[n]; ok {
			res.Status, res.Since, res.ExitCode = string(r.Status), r.StatusSince, r.ExitCode
			res.Reached = u.Reached(r.Status)
			res.Never = !res.Reached && r.Status == state.Exited
		} else {
			res.Never = true // deleted while waiting
		}
		if !res.Reached && !res.Never {
			done = false
		}
		out = append(out, res)
	}
	return out, done
}
