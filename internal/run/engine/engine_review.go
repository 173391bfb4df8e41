package engine

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/workspace"
)

// reviewCheck is the AI review of the worktree of name at dir, whose
// HEAD has tree, as a check result on tree: passed on pass or concerns,
// failed with the findings on fail, Unavailable with why on no verdict.
// The review is control.Review's (the [review] tool and timeout, cached
// per tree), so owt merge --review later reuses its verdict.
func (e *Engine) reviewCheck(repo, name, dir, tree string) run.CheckResult {
	res := run.CheckResult{Tree: tree}
	unavailable := func(why string) run.CheckResult {
		res.Unavailable = why
		res.Output = "the AI review is unavailable: " + why
		return res
	}
	w, err := workspace.Open(repo, e.Tmux)
	if err != nil {
		return unavailable(err.Error())
	}
	rec, err := w.Get(name)
	if err != nil {
		return unavailable(err.Error())
	}
	head, err := (git.Repo{Root: dir}).ResolveCommit("HEAD")
	if err != nil {
		return unavailable(err.Error())
	}
	r := control.Review(w, rec, rec.Base, head, nil)
	switch r.Verdict {
	case land.ReviewPass, land.ReviewConcerns:
		res.Passed = true
	case land.ReviewFail:
		var b strings.Builder
		fmt.Fprintf(&b, "the AI review (%s) fails it with %d finding(s):", r.Tool, len(r.Findings))
		for _, l := range r.Lines() {
			b.WriteString("\n" + l)
		}
		res.Output = b.String()
	default:
		return unavailable(r.Why)
	}
	return res
}
