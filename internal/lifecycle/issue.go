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
	issue, err := w.issue(o.Issue)
	if err != nil {
		return err
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

// IssueTask is the task GitHub issue number makes (a run's task with
// issue = N): its title, body and comments, bounded and drawn inert.
func (w *Worktrees) IssueTask(number int) (string, error) {
	issue, err := w.issue(number)
	if err != nil {
		return "", err
	}
	return issue.Text.Typed(), nil
}

func (w *Worktrees) issue(number int) (forge.Issue, error) {
	issue, err := forge.Client{}.Issue(w.Repo.Root, number)
	if err != nil {
		return forge.Issue{}, fmt.Errorf("issue %d: %w", number, err)
	}
	return issue, nil
}
