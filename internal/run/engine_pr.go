package run

import (
	"fmt"
	"time"
)

// prRetryAfter is how long a pull request that could not be opened (no
// remote, a rejected push, gh not logged in) waits before owt tries again.
const prRetryAfter = 10 * time.Minute

// openPRs opens a pull request for each done task of a run with [run] pr
// that has none: one a tick, outside the run's lock (a push takes time),
// through the OpenPR the monitor gives (owt pr's own path).
func (e *Engine) openPRs(name string, now time.Time) error {
	if e.OpenPR == nil {
		return nil
	}
	r, err := e.Store.Load(name)
	if err != nil || !r.Plan.PR {
		return err
	}
	for _, t := range r.Tasks {
		if t.State != Done || t.PR != 0 || t.Name == "" || (!t.PRTried.IsZero() && now.Sub(t.PRTried) < prRetryAfter) {
			continue
		}
		n, perr := e.OpenPR(r.Repo, t.Name)
		id, wt := t.ID, t.Name
		return e.Store.Update(name, func(cur *Run) ([]Event, error) {
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
				return []Event{{At: now, Event: "pr_failed", Task: id, Detail: ct.PRError + fmt.Sprintf(" (tried again in %s)", prRetryAfter)}}, nil
			}
			ct.PR, ct.PRError = n, ""
			return []Event{{At: now, Event: "pr", Task: id, Detail: fmt.Sprintf("pull request #%d for %s", n, wt)}}, nil
		})
	}
	return nil
}
