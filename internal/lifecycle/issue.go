package lifecycle

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/workspace"
)

// fromIssue makes GitHub issue o.Issue the task: its title, body and
// comments (bounded, drawn inert), before any task text given (a run's
// brief and instruction). Without a name, the worktree is issue-N on a
// branch issue-N-slug. gh missing, not logged in or failing is one line,
// before anything is made.
func (w *Worktrees) fromIssue(o *CreateOptions) error {
	issue, err := forge.Client{}.Issue(w.Repo.Root, o.Issue)
	if err != nil {
		return fmt.Errorf("issue %d: %w", o.Issue, err)
	}
	task := issue.Text.Typed()
	if rest := strings.TrimSpace(o.Task); rest != "" {
		task += "\n\n" + rest
	}
	o.Task = task
	if o.Name == "" {
		o.Name = fmt.Sprintf("issue-%d", o.Issue)
		if o.Branch == "" {
			slug, _ := workspace.DeriveName(issue.Title.Line())
			o.Branch = fmt.Sprintf("issue-%d-%s", o.Issue, slug)
		}
	}
	return nil
}

// FromIssue is what owt new --issue makes of o before anything is made
// (fromIssue), for an agent created elsewhere (on a host): the issue is
// read here, through this machine's gh; o.Issue is then 0 and
// o.ReadIssue the issue: the task is its text.
func (w *Worktrees) FromIssue(o *CreateOptions) error {
	if err := w.fromIssue(o); err != nil {
		return err
	}
	o.ReadIssue, o.Issue = o.Issue, 0
	return nil
}
