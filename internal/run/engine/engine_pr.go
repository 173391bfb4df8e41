package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// prRetryAfter is how long a pull request that could not be opened (no
// remote, a rejected push, gh not logged in) waits before owt tries again.
const prRetryAfter = 10 * time.Minute

// prTimeout bounds one try at a task's pull request: the push (with its
// hooks) and the gh calls.
const prTimeout = 10 * time.Minute

// openPRs opens a pull request for each done task of a run with [run] pr
// that has none: in the background (a push and two gh calls can take
// minutes; the monitor's tick must not wait), one task at a time per run,
// through owt pr's own path (openPR).
func (e *Engine) openPRs(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil || !r.Plan.PR {
		return err
	}
	for _, t := range r.Tasks {
		if t.State != run.Done || t.PR != 0 || t.Name == "" || (!t.PRTried.IsZero() && now.Sub(t.PRTried) < prRetryAfter) {
			continue
		}
		key := "pr\x00" + name
		if !e.opening.claim(key) {
			return nil // this run's last one is still being opened
		}
		go func(repo, id, wt string) {
			defer e.opening.release(key)
			n, perr := 0, emptyBranch(repo, wt)
			if perr == nil {
				n, perr = e.openPR(repo, wt)
			}
			if err := e.recordPR(name, id, wt, n, perr); err != nil {
				e.logf(repo, wt, "run %s: task %s: pull request: %v", name, id, err)
			}
		}(r.Repo, t.ID, t.Name)
		return nil
	}
	return nil
}

// recordPR keeps what opening the task's pull request gave, if the task
// still has that worktree.
func (e *Engine) recordPR(name, id, wt string, n int, perr error) error {
	now := time.Now()
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		ct, ok := cur.Task(id)
		if !ok || ct.Name != wt {
			return nil, nil
		}
		ct.PRTried, cur.UpdatedAt = now, now // kept even when nothing is logged: the next try waits
		if perr != nil {
			was := ct.PRError
			ct.PRError = perr.Error()
			if was == ct.PRError {
				return nil, nil
			}
			return []run.Event{{At: now, Event: "pr_failed", Task: id, Detail: ct.PRError + fmt.Sprintf(" (tried again in %s)", prRetryAfter)}}, nil
		}
		ct.PR, ct.PRError = n, ""
		return []run.Event{{At: now, Event: "pr", Task: id, Detail: fmt.Sprintf("pull request #%d for %s", n, wt)}}, nil
	})
}

// emptyBranch refuses a pull request for a task's branch that holds no
// change against the task's start: there is nothing to offer.
func emptyBranch(repo, name string) error {
	f, err := state.ForRepo(repo).Peek()
	if err != nil {
		return fmt.Errorf("read worktree state: %w", err)
	}
	rec := f.Records[name]
	if rec == nil || !run.IsDir(rec.Path) {
		return nil // owt pr says what a missing worktree allows
	}
	w, err := run.WorkOf(rec)
	if err != nil {
		return err
	}
	if w.Empty() {
		return errors.New(w.EmptyWhy() + ": no pull request for an empty branch")
	}
	return nil
}

// openPR is owt pr for a run task's worktree ([run] pr): the same path,
// so a run's pull request is polled and reacted to like any other.
func (e *Engine) openPR(repo, name string) (int, error) {
	w, err := workspace.OpenRoot(repo, e.Tmux)
	if w == nil {
		return 0, err
	}
	// Bounded: a remote or gh that never answers ends this try, which is
	// logged and tried again after prRetryAfter, never holding the run's
	// next pull request.
	ctx, cancel := context.WithTimeout(context.Background(), prTimeout)
	defer cancel()
	w.Repo = w.Repo.WithContext(ctx)
	pr, err := land.OpenPR(w, name, land.PROptions{}, forge.Client{}.WithContext(ctx))
	if err != nil {
		return 0, err
	}
	return pr.Number, nil
}
