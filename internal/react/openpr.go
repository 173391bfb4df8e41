package react

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// PROptions tune OpenPR.
type PROptions struct {
	Draft bool
	Base  string // the branch to merge into; the worktree's base when empty
}

// OpenPR pushes the worktree's branch to the repo's remote and opens a
// pull request for it with gh: the title is the task's first line, the
// body its commits and the agent's owt done summary. The PR's number is
// recorded, so the monitor polls it and owt list shows it.
func OpenPR(w *workspace.Workspace, name string, o PROptions, gh forge.Client) (state.PR, error) {
	rec, err := w.Get(name)
	if err != nil {
		return state.PR{}, err
	}
	if rec.PR != nil && rec.PR.State == "OPEN" {
		return *rec.PR, fmt.Errorf("%s has pull request #%d open already: %s", name, rec.PR.Number, rec.PR.URL)
	}
	base := o.Base
	if base == "" {
		base = rec.Base
	}
	repo := w.Repo
	remote, err := repo.PushRemote(w.Config.PR.Remote, base)
	if err != nil {
		return state.PR{}, fmt.Errorf("owt pr %s: %w", name, err)
	}
	subjects, err := repo.Subjects(base, rec.Branch)
	if err != nil {
		return state.PR{}, err
	}
	if len(subjects) == 0 {
		return state.PR{}, fmt.Errorf("owt pr %s: %s has no commits beyond %s: nothing to open a pull request for", name, rec.Branch, base)
	}
	if err := repo.Push(remote, rec.Branch); err != nil {
		return state.PR{}, err
	}
	made, err := gh.Create(rec.Path, forge.CreateOptions{
		Head: rec.Branch, Base: base, Title: prTitle(rec), Body: prBody(rec, subjects), Draft: o.Draft,
	})
	if err != nil {
		return state.PR{}, fmt.Errorf("pushed %s to %s, but: %w", rec.Branch, remote, err)
	}
	head, _ := repo.ResolveCommit(rec.Branch)
	pr := state.PR{Number: made.Number, URL: made.URL, State: "OPEN", Draft: o.Draft, Head: head}
	err = w.Store.Update(func(f *state.File) error {
		cur := f.Records[name]
		if cur == nil {
			return fmt.Errorf("%s was deleted meanwhile; its pull request is %s", name, made.URL)
		}
		p := pr
		cur.PR = &p
		return nil
	})
	return pr, err
}

// prTitle is the task's first line (the branch when there is no task),
// at most 72 characters.
func prTitle(rec *state.Record) string {
	// Text for a web page, not keys: escapes and other controls go.
	title := strings.TrimSpace(run.Tail([]byte(firstLine(rec.Task)), 1))
	if title == "" {
		title = rec.Branch
	}
	if r := []rune(title); len(r) > 72 {
		title = string(r[:71]) + "…"
	}
	return title
}

// prBody lists the commits and adds what the agent said it did.
func prBody(rec *state.Record, subjects []string) string {
	var b strings.Builder
	if rec.Done != nil && rec.Done.Summary != "" {
		b.WriteString(rec.Done.Summary + "\n\n")
	}
	b.WriteString("Commits:\n")
	for _, s := range subjects {
		b.WriteString("- " + s + "\n")
	}
	fmt.Fprintf(&b, "\nOpened by owt for the agent %s (%s), %s.\n", rec.Name, rec.Tool, time.Now().Format("2006-01-02"))
	return b.String()
}
