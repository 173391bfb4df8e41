package land

import (
	"fmt"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// CheckTarget says whether owt merge could land on target as things are:
// nil when target is checked out nowhere, or in a clean checkout on it
// that no busy agent works in; a *TargetBusyError when it is checked out
// in the worktree of an agent in the middle of a turn (records lists the
// repository's worktrees; nil: none is looked at), a *TargetDirtyError
// when that checkout is dirty or mid-operation. owt run start warns with
// it before a run that lands there is registered.
func CheckTarget(g git.Repo, records func() ([]*state.Record, error), target string) error {
	_, err := (&Context{Git: g, Records: records}).checkTargetCheckout(target)
	return err
}

// TargetBusyError refuses a landing on a branch checked out in an owt
// worktree whose agent is starting, working or waiting (AgentBusy): the
// landing would change the files under it mid-turn.
type TargetBusyError struct {
	Target   string
	Checkout string
	Agent    string // the worktree's name
	Busy     string // what its agent is doing (AgentBusy)
}

func (e *TargetBusyError) Error() string {
	return e.Where() + "; nothing lands there until it is idle"
}

// Where says whose turn is in the way: the target's checkout, its agent
// and what it is doing.
func (e *TargetBusyError) Where() string {
	return fmt.Sprintf("%s is checked out in %s, where the agent %s %s: landing there would change its files mid-turn",
		e.Target, e.Checkout, e.Agent, e.Busy)
}

// checkTargetBusy refuses when checkout, where target is checked out, is
// the worktree of an agent in the middle of a turn.
func (c *Context) checkTargetBusy(target, checkout string) error {
	recs, err := c.records()
	if err != nil {
		return fmt.Errorf("read worktree state: %w", err)
	}
	for _, r := range recs {
		if !sameDir(r.Path, checkout) {
			continue
		}
		if busy := AgentBusy(r); busy != "" {
			return &TargetBusyError{Target: target, Checkout: checkout, Agent: r.Name, Busy: busy}
		}
	}
	return nil
}

// sameDir reports whether a and b name the same directory, links resolved.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
