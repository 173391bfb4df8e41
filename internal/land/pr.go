// Opening a worktree's pull request: push its branch and
// ask gh for the pull request (or adopt the open one), then record it on
// the worktree. owt pr and the run engine ([run] pr) both call OpenPR.

package land

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// PROptions tune OpenPR.
type PROptions struct {
	Draft bool
	Base  string // the branch to merge into; the worktree's base when empty
}

// OpenedPR is what OpenPR did: the pull request as recorded, and whether
// it was one that was open already (adopted) rather than opened now.
type OpenedPR struct {
	state.PR
	Adopted bool `json:"adopted"`
}

// OpenPR pushes the worktree's branch to the repo's remote and opens a
// pull request for it with gh: the title is the task's first line, the
// body its commits and the agent's owt done summary. An open pull request
// of the branch is adopted instead: the branch is pushed to it. The PR's
// number is recorded, so the monitor polls it and owt list shows it.
// Nothing is pushed before gh has answered: gh not logged in, missing or
// failing leaves the remote as it was.
func OpenPR(w *workspace.Workspace, name string, o PROptions, gh forge.Client) (OpenedPR, error) {
	p, err := preparePR(w, name, o)
	if err != nil {
		return OpenedPR{}, err
	}
	existing, found, err := gh.Find(p.rec.Path, p.rec.Branch)
	if err != nil {
		return OpenedPR{}, fmt.Errorf("owt pr %s: %w; nothing was pushed", name, err)
	}
	if found && existing.State == "OPEN" {
		if o.Base != "" && existing.BaseRefName != "" && existing.BaseRefName != o.Base {
			return OpenedPR{}, fmt.Errorf("owt pr %s: pull request #%d of %s is open against %s, not %s (%s): change its base there, or close it first; nothing was pushed",
				name, existing.Number, p.rec.Branch, existing.BaseRefName, o.Base, existing.URL)
		}
		return adoptPR(w, p, existing)
	}
	if err := w.Repo.Push(p.remote, p.rec.Branch); err != nil {
		return OpenedPR{}, err
	}
	made, err := gh.Create(p.rec.Path, forge.CreateOptions{
		Head: p.rec.Branch, Base: p.base, Title: prTitle(p.rec), Body: prBody(p.rec, p.subjects), Draft: o.Draft,
	})
	if err != nil {
		return OpenedPR{}, fmt.Errorf("pushed %s to %s, but: %w", p.rec.Branch, p.remote, err)
	}
	head, _ := w.Repo.ResolveCommit(git.BranchRef(p.rec.Branch))
	pr := ghText(state.PR{Number: made.Number, URL: made.URL, State: "OPEN", Draft: o.Draft, Head: head})
	return OpenedPR{PR: pr}, recordPR(w, p.rec, pr)
}

// prPlan is what owt pr found out before touching anything.
type prPlan struct {
	rec      *state.Record
	base     string
	remote   string
	subjects []string // the commits the pull request brings
}

// preparePR checks everything owt pr can check without a side effect:
// the worktree, no open pull request recorded, a --base that is a branch,
// a remote, commits to offer.
func preparePR(w *workspace.Workspace, name string, o PROptions) (prPlan, error) {
	rec, err := w.Get(name)
	if err != nil {
		return prPlan{}, err
	}
	if rec.PR != nil && rec.PR.State == "OPEN" {
		return prPlan{}, fmt.Errorf("%s has pull request #%d open already: %s", name, rec.PR.Number, rec.PR.URL)
	}
	base := o.Base
	if base == "" {
		base = rec.Base
	} else if err := checkBase(w, base); err != nil {
		return prPlan{}, err
	}
	remote, err := w.Repo.PushRemote(w.Config.PR.Remote, base)
	if err != nil {
		return prPlan{}, fmt.Errorf("owt pr %s: %w", name, err)
	}
	subjects, err := w.Repo.Subjects(git.BranchRef(base), git.BranchRef(rec.Branch))
	if err != nil {
		return prPlan{}, err
	}
	if len(subjects) == 0 {
		return prPlan{}, fmt.Errorf("owt pr %s: %s has no commits beyond %s: nothing to open a pull request for", name, rec.Branch, base)
	}
	return prPlan{rec: rec, base: base, remote: remote, subjects: subjects}, nil
}

// adoptPR pushes the branch to its open pull request (never forced: a
// head with commits the worktree lacks refuses the push) and records it.
func adoptPR(w *workspace.Workspace, p prPlan, existing forge.PR) (OpenedPR, error) {
	if err := w.Repo.Push(p.remote, p.rec.Branch); err != nil {
		return OpenedPR{}, fmt.Errorf("pull request #%d is open for %s already (%s), but pushing to it failed (nothing recorded): %w", existing.Number, p.rec.Branch, existing.URL, err)
	}
	head, _ := w.Repo.ResolveCommit(git.BranchRef(p.rec.Branch))
	// Its checks and review are the old head's: the monitor's first poll
	// reads them afresh.
	pr := ghText(state.PR{Number: existing.Number, URL: existing.URL, State: existing.State, Draft: existing.IsDraft, Head: head})
	return OpenedPR{PR: pr, Adopted: true}, recordPR(w, p.rec, pr)
}

// ghText is pr with gh's words as text, never a terminal's controls, as
// the monitor's polls record them (notePR): owt pr --json, owt list
// --json and every screen show the same clean text.
func ghText(pr state.PR) state.PR {
	pr.URL, pr.State, pr.Review, pr.Head = untrusted.CleanLine(pr.URL), untrusted.CleanLine(pr.State), untrusted.CleanLine(pr.Review), untrusted.CleanLine(pr.Head)
	return pr
}

// recordPR keeps pr on the worktree's record, if it is still the one
// whose branch the pull request is for.
func recordPR(w *workspace.Workspace, rec *state.Record, pr state.PR) error {
	return w.Store.Update(func(f *state.File) error {
		cur := f.Records[rec.Name]
		if cur == nil || cur.Branch != rec.Branch {
			return fmt.Errorf("%s was deleted meanwhile; the pull request of %s is %s", rec.Name, rec.Branch, pr.URL)
		}
		p := pr
		cur.PR = &p
		return nil
	})
}

// prTitle is the task's first line (the branch when there is no task),
// at most 72 characters.
func prTitle(rec *state.Record) string {
	// Text for a web page, not keys: escapes and other controls go.
	title := strings.TrimSpace(Tail([]byte(titleLine(rec.Task)), 1))
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
	if rec.Done != nil && !rec.Done.Summary.Empty() {
		b.WriteString(rec.Done.Summary.Block() + "\n\n")
	}
	b.WriteString("Commits:\n")
	for _, s := range subjects {
		b.WriteString("- " + s + "\n")
	}
	if rec.Issue > 0 {
		fmt.Fprintf(&b, "\nCloses #%d\n", rec.Issue) // the task came from it (owt new --issue)
	}
	fmt.Fprintf(&b, "\nOpened by owt for %s, %s.\n", openedFor(rec), time.Now().Format("2006-01-02"))
	return b.String()
}

// openedFor names whom owt opened the pull request for: the agent and its
// tool, or the worktree when no agent works in it (--no-agent).
func openedFor(rec *state.Record) string {
	if rec.NoAgent || rec.Tool == "" {
		return "the worktree " + rec.Name
	}
	return fmt.Sprintf("the agent %s (%s)", rec.Name, rec.Tool)
}

func titleLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
