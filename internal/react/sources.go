package react

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
)

// checks runs the repo's [checks] commands in the agent's worktree when
// its HEAD tree is one they have not judged: a failure goes to the agent
// with the command, its exit and its output's tail.
func (x *Reactor) checks(rec *state.Record, cfg config.Config) error {
	rc := cfg.Reactions[config.ChecksFailed]
	if len(cfg.Checks.Commands) == 0 || rc.Action == "off" {
		return nil
	}
	wt := git.Repo{Root: rec.Path}
	tree, err := wt.TreeOf("HEAD")
	if err != nil {
		return err
	}
	if memory(rec, config.ChecksFailed).Seen == tree {
		return nil // judged already: the same tree gives the same answer
	}
	// The checks judge the agent's commits: none yet (the base's own
	// failures are not its doing), or uncommitted changes that the run
	// would test instead of the commit, wait for a later turn.
	from := rec.BaseCommit
	if from == "" {
		from = rec.Base
	}
	if ahead, _, err := wt.AheadBehind(from, "HEAD"); err != nil || ahead == 0 {
		return err
	}
	if dirty, err := lifecycle.WorkFiles(rec); err != nil || len(dirty) > 0 {
		return err
	}
	res := land.RunChecks(rec.Path, cfg.Checks.Commands, cfg.Checks.Timeout.Duration)
	if res.Passed {
		return x.pass(rec, config.ChecksFailed, tree)
	}
	return x.fail(rec, failure{
		reaction: config.ChecksFailed, seen: tree, sig: "tree " + tree + " " + digest(res.Output),
		what: firstLine(res.Output), data: MessageData{Failure: res.Output},
	}, rc)
}

// conflict predicts the merge of the agent's branch into its target (the
// run's into, else its base) with git merge-tree whenever either moved: a
// conflict goes to the agent with the files and the target's commits that
// touch them.
func (x *Reactor) conflict(it Input) error {
	rec, target := it.Rec, it.target()
	rc := it.Config.Reactions[config.Conflict]
	if rc.Action == "off" || target == "" {
		return nil
	}
	if rec.Resolve != nil {
		return nil // handed to the agent with owt resolve, which checks it
	}
	repo := git.Repo{Root: rec.Repo}
	head, err := repo.ResolveCommit(git.BranchRef(rec.Branch))
	if err != nil {
		return err
	}
	base, err := repo.ResolveCommit(git.BranchRef(target))
	if err != nil && target != rec.Base && rec.Base != "" {
		// A run makes its into at its first landing, from the base.
		target = rec.Base
		base, err = repo.ResolveCommit(git.BranchRef(target))
	}
	if err != nil {
		return nil // its target is gone: nothing to predict against
	}
	// The target is part of what was judged: a task that moves from its
	// base to its run's into is judged again.
	seen := head + " " + base + " " + target
	if m := memory(rec, config.Conflict); m.Seen == seen && !Unheeded(&m, rec) {
		return nil // judged, and the agent had no turn on it since
	}
	res, err := repo.MergeTree(head, base)
	if err != nil {
		return err
	}
	if res.Clean() {
		return x.pass(rec, config.Conflict, seen)
	}
	sig, other, err := conflictCause(repo, head, base, target, res.Conflicts)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Conflicting files (your branch %s against %s at %s):\n", rec.Branch, target, short(base))
	for _, f := range res.Conflicts {
		b.WriteString("  " + f + "\n")
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "The other side, on %s:\n", target)
		for _, c := range other[:min(len(other), otherSideShown)] {
			b.WriteString("  " + short(c.ID) + " " + c.Subject.Typed() + "\n")
		}
	}
	return x.fail(rec, failure{
		reaction: config.Conflict, seen: seen, afterTurn: true,
		sig:  sig,
		what: "conflicts with " + target + " in " + strings.Join(res.Conflicts, ", "),
		data: MessageData{Failure: b.String(), Base: target},
	}, rc)
}

// conflictCause is the signature of a conflict: the files and the
// commits on each side that touch them, not the heads. The target moving
// on for other reasons, or the agent committing other work, is the same
// conflict, not news; a new commit on a conflicting file (the agent's
// try at it included) is. other is the target's side, newest first.
func conflictCause(repo git.Repo, head, base, target string, files []string) (sig string, other []git.TouchingCommit, err error) {
	other, err = repo.CommitsTouching(head, base, files, otherSideCommits)
	if err != nil {
		return "", nil, err
	}
	ours, err := repo.CommitsTouching(base, head, files, otherSideCommits)
	if err != nil {
		return "", nil, err
	}
	parts := []string{target, strings.Join(files, "\n")}
	for _, side := range [][]git.TouchingCommit{other, ours} {
		ids := make([]string, len(side))
		for i, c := range side {
			ids[i] = c.ID
		}
		parts = append(parts, strings.Join(ids, " "))
	}
	return "merge " + digest(parts...), other, nil
}

// otherSideCommits bounds the commits of each side a conflict's cause is
// made of (the newest: a new one on the conflicting files changes it);
// otherSideShown is how many of the target's the message names.
const (
	otherSideCommits = 50
	otherSideShown   = 5
)

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
