package control

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// ReviewCacheDir is where review verdicts are cached, one file per key.
func ReviewCacheDir() string { return filepath.Join(xdg.CacheHome, "owt", "review") }

// ReviewRefused is a merge or ship stopped by the AI review: it failed, or
// there is no verdict (the tool is missing, not signed in, timed out, or
// answered no valid verdict). Nothing was changed; the user may accept it.
type ReviewRefused struct {
	Name   string
	Verb   string // "merged", "shipped"
	Result land.ReviewResult
}

func (e *ReviewRefused) Error() string {
	cmd := "merge"
	if e.Verb == "shipped" {
		cmd = "ship"
	}
	if e.Result.Verdict == land.ReviewUnavailable {
		return fmt.Sprintf("the AI review of %s is unavailable: %s; nothing was %s (go on without it: 'owt %s %s --accept-review')",
			e.Name, e.Result.Why, e.Verb, cmd, e.Name)
	}
	return fmt.Sprintf("the AI review (%s) fails %s with %d finding(s); nothing was %s: fix them, or go on: 'owt %s %s --accept-review'",
		e.Result.Tool, e.Name, len(e.Result.Findings), e.Verb, cmd, e.Name)
}

// Review is the AI review of tip landing on target for rec's worktree:
// by [review] tool, else rec's own tool, else [agent] tool, within
// [review] timeout, cached by tree. It never fails: a review that could
// not be made is land.ReviewUnavailable with one line why. log, when set,
// hears that a review starts (it may take minutes).
func Review(w *workspace.Workspace, rec *state.Record, target, tip string, log io.Writer) land.ReviewResult {
	name := w.Config.Review.Tool
	if name == "" {
		name = rec.Tool
	}
	if name == "" {
		name = w.Config.Agent.Tool
	}
	prof, err := agent.Resolve(w.Tools, name)
	if err != nil {
		return land.ReviewResult{Verdict: land.ReviewUnavailable, Tool: name, Why: err.Error(), Findings: []land.Finding{}}
	}
	base, err := w.Repo.ResolveCommit(git.BranchRef(target))
	if err != nil {
		base, err = w.Repo.ResolveCommit(target)
	}
	if err != nil {
		return land.ReviewResult{Verdict: land.ReviewUnavailable, Tool: prof.Name, Why: fmt.Sprintf("no branch %s to review against", target), Findings: []land.Finding{}}
	}
	if log != nil {
		fmt.Fprintf(log, "owt: reviewing %s with %s (at most %s)…\n", rec.Name, prof.Name, w.Config.Review.Timeout.Duration)
	}
	return land.Review(context.Background(), land.ReviewRequest{
		Repo: w.Repo, Base: base, Tip: tip, Task: rec.Task, Profile: prof,
		Timeout: w.Config.Review.Timeout.Duration, CacheDir: ReviewCacheDir(),
	})
}

// ReviewForCheck is the review owt check shows: of what a ship of rec
// would land (its branch with its uncommitted work) on into, or its base.
func ReviewForCheck(w *workspace.Workspace, rec *state.Record, into string, log io.Writer) (land.ReviewResult, error) {
	tip, err := MergeContext(w).WouldLand(rec)
	if err != nil {
		return land.ReviewResult{}, err
	}
	if into == "" {
		into = rec.Base
	}
	return Review(w, rec, into, tip, log), nil
}

// reviewGate is the land.Context gate of a landing under o: nil when no
// review is asked for (o.Review, or [review] enabled). The review made is
// kept in *got; a blocking one refuses unless o.AcceptReview.
func reviewGate(w *workspace.Workspace, o LandOptions, verb string, got **land.ReviewResult) func(*state.Record, string, string) error {
	if !o.Review && !w.Config.Review.Enabled && o.Accepted == nil {
		return nil
	}
	return func(r *state.Record, target, tip string) error {
		if a := o.Accepted; a != nil && sameTrees(w, *a, target, tip) {
			res := *a
			*got = &res
			return nil
		}
		res := Review(w, r, target, tip, o.ReviewLog)
		*got = &res
		if res.Blocks() && !o.AcceptReview {
			return &ReviewRefused{Name: r.Name, Verb: verb, Result: res}
		}
		// A review takes a while: the agent may have started a turn
		// meanwhile (ship looks again right before its commit).
		if verb == "merged" {
			return RefuseBusy(w, r, "merging", o.Force)
		}
		return nil
	}
}

// sameTrees says whether review a is of tip landing on target as they are.
func sameTrees(w *workspace.Workspace, a land.ReviewResult, target, tip string) bool {
	tree, err := w.Repo.TreeOf(tip)
	if err != nil || tree != a.Tree {
		return false
	}
	base, err := w.Repo.TreeOf(git.BranchRef(target))
	return err == nil && base == a.BaseTree
}
