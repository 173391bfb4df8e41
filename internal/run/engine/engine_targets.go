package engine

import (
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
)

// IntoOf is the branch the work of a live run's task agent lands in (the
// run's into), or "" for an agent of no run with an into: the reactions
// predict its conflicts against that branch instead of the worktree's
// base. It is what the last Tick saw, so it costs nothing to ask.
func (e *Engine) IntoOf(repo, name string) string {
	return e.targets[outbox.Agent{Repo: repo, Name: name}]
}

// noteTargets remembers the into branch of r's started tasks for IntoOf.
func (e *Engine) noteTargets(r *run.Run) {
	if r.Into == "" {
		return
	}
	for _, t := range r.Tasks {
		if t.Name != "" {
			e.targets[outbox.Agent{Repo: r.Repo, Name: t.Name}] = r.Into
		}
	}
}
