package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/usage"
)

// checkBudget pauses an active run with budget_tokens whose agents used
// them up, as the monitor's usage tick last counted (one read of the
// repository's usage file; no session file). No new task starts then;
// the board shows the run in NEEDS YOU with the reason.
func (e *Engine) checkBudget(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil || r.Plan.BudgetTokens <= 0 || r.State != run.Active || r.BudgetPaused {
		return err
	}
	used := usage.TokensOf(r.Repo, r.AgentNames())
	if len(r.PauseForBudget(used, now)) == 0 {
		return nil // a dry run on the copy just read
	}
	e.logf(r.Repo, "", "run %s: %s", name, run.BudgetWhy(used, r.Plan.BudgetTokens))
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		return cur.PauseForBudget(usage.TokensOf(cur.Repo, cur.AgentNames()), now), nil
	})
}
