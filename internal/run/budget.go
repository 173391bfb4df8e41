package run

import (
	"fmt"
	"time"
)

// BudgetWhy is why a run paused at its budget_tokens.
func BudgetWhy(used, budget int64) string {
	return fmt.Sprintf("budget reached: %d tokens of %d", used, budget)
}

// PauseForBudget pauses an active run whose agents used used tokens, once
// that reaches its plan's budget_tokens: no task starts until the user's
// owt run resume, after which the run goes on past the budget (it is
// paused for it once). It returns the event to log, none when nothing
// changed.
func (r *Run) PauseForBudget(used int64, now time.Time) []Event {
	if r.Plan.BudgetTokens <= 0 || used < r.Plan.BudgetTokens || r.State != Active || r.BudgetPaused {
		return nil
	}
	r.State, r.Why, r.BudgetPaused, r.UpdatedAt = Paused, BudgetWhy(used, r.Plan.BudgetTokens), true, now
	return []Event{{At: now, Event: "paused", Detail: "active → paused: " + r.Why}}
}

// AgentNames are the worktrees the run's tasks started.
func (r *Run) AgentNames() []string {
	var out []string
	for _, t := range r.Tasks {
		if t.Name != "" {
			out = append(out, t.Name)
		}
	}
	return out
}
