package lifecycle

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/workspace"
)

// fromIssue makes GitHub issue o.Issue the task: its title, body and
// comments (bounded, drawn inert), on a branch issue-N-slug in a
// worktree issue-N. gh missing, not logged in or failing is one line,
// before anything is made.
func (w *Worktrees) fromIssue(o *CreateOptions) error {
	if o.Task != "" {
		return badOption(fmt.Errorf("--issue %d is the task: give no task text with it", o.Issue))
	}
	issue, err := forge.Client{}.Issue(w.Repo.Root, o.Issue)
	if err != nil {
		return fmt.Errorf("--issue %d: %w", o.Issue, err)
	}
	o.Task = issue.Text.Typed()
	slug, _ := workspace.DeriveName(issue.Title.Line())
	if o.Name == "" {
		o.Name = fmt.Sprintf("issue-%d", o.Issue)
	}
	if o.Branch == "" {
		o.Branch = fmt.Sprintf("issue-%d-%s", o.Issue, slug)
	}
	return nil
}
