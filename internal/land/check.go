package land

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Overlap is a set of files this worktree shares with another party: the
// files both change (overlaps) or the files whose changes git could not
// combine (conflicts).
type Overlap struct {
	With  string   `json:"with"`
	Kind  string   `json:"kind"` // "base" (the target branch) or "worktree"
	Files []string `json:"files"`
}

// Report is what owt shows before a merge, ship or delete: what is not
// committed, how far the branch is from its base, and what it would
// collide with. Every figure is computed from git now, not from a cache.
type Report struct {
	Name       string    `json:"name"`
	Branch     string    `json:"branch"`
	Base       string    `json:"base"`
	Status     string    `json:"status"`
	Ahead      int       `json:"ahead"`
	Behind     int       `json:"behind"`
	DirtyFiles []string  `json:"dirty_files"`
	Overlaps   []Overlap `json:"overlaps"`
	Conflicts  []Overlap `json:"conflicts"`
	Empty      bool      `json:"empty"`
	// Missing is set when the worktree folder is gone.
	Missing bool `json:"missing,omitempty"`
	// OffBranch is set when the worktree's HEAD is not on its branch (a
	// detached HEAD, another branch): merge, ship and sync refuse then.
	OffBranch bool `json:"off_branch,omitempty"`
	// BaseCheckout is where the base branch is checked out ("" nowhere);
	// BaseCheckoutDirty lists its changed tracked files, which block a merge.
	BaseCheckout      string   `json:"base_checkout,omitempty"`
	BaseCheckoutDirty []string `json:"base_checkout_dirty,omitempty"`

	// EditedCopies are ignored files owt copied in that changed since:
	// not uncommitted work (no commit takes them), but the worktree holds
	// their only copy, so merge and ship keep the worktree for them.
	EditedCopies []string `json:"edited_copies"`

	// BaseMissing is set when the recorded base branch no longer exists:
	// the figures compare with where the branch started, and a merge
	// needs --into.
	BaseMissing bool `json:"base_missing,omitempty"`
	// BaseNotBranch is set, with BaseMissing, when the base still names
	// something that is not a local branch (a tag, a remote branch, a
	// commit): owt merge refuses it in the same words.
	BaseNotBranch bool `json:"base_not_branch,omitempty"`

	// Busy is what the agent is in the middle of ("is working", "waits
	// for you"), "" when nothing is under way: landing now would commit
	// and end a turn from under it.
	Busy string `json:"busy,omitempty"`

	// NoAgent is set for a shell made with --no-agent: it has no agent
	// whose status could be told.
	NoAgent bool `json:"no_agent,omitempty"`
}

// AgentBusy says what r's agent is in the middle of when landing its work
// now would take a turn from under it — "is starting", "is working",
// "waits for you" — or "" when nothing is under way (idle, exited, a
// shell made with --no-agent).
func AgentBusy(r *state.Record) string {
	if r.NoAgent {
		return ""
	}
	switch r.Status {
	case state.Starting, state.Working:
		return "is " + string(r.Status)
	case state.Waiting:
		return "waits for you"
	}
	return ""
}

// Check builds the report of the worktree r against into (its recorded
// base when empty).
func (c *Context) Check(r *state.Record, into string) (Report, error) {
	rep := Report{Name: r.Name, Branch: r.Branch, Base: into, Status: string(r.Status), NoAgent: r.NoAgent,
		DirtyFiles: []string{}, EditedCopies: []string{}, Overlaps: []Overlap{}, Conflicts: []Overlap{}, Busy: AgentBusy(r)}
	if rep.Base == "" {
		rep.Base = r.Base
	}
	base := rep.Base
	if into == "" {
		// baseRef's rule on the one BranchExists the report needs anyway.
		rep.BaseMissing = !c.Git.BranchExists(rep.Base)
		base = git.BranchRef(rep.Base)
		if rep.BaseMissing && r.BaseCommit != "" {
			base = r.BaseCommit
		}
		if rep.BaseMissing {
			_, err := c.Git.ResolveCommit(rep.Base)
			rep.BaseNotBranch = err == nil
		}
	} else if !c.Git.BranchExists(into) {
		return rep, fmt.Errorf("no branch %q to merge into", into)
	} else {
		base = git.BranchRef(into)
	}
	branch := git.BranchRef(r.Branch)
	if !c.Git.BranchExists(r.Branch) {
		return rep, fmt.Errorf("%s: its branch %s no longer exists", r.Name, r.Branch)
	}
	rep.Missing = !isDir(r.Path)
	if !rep.Missing {
		if cur, err := git.CurrentBranch(r.Path); err == nil && cur != r.Branch {
			rep.OffBranch = true
		}
	}
	dirty, err := c.workFiles(r)
	if err != nil {
		return rep, fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	if dirty != nil {
		rep.DirtyFiles = dirty
	}
	copies, err := c.editedCopies(r)
	if err != nil {
		return rep, err
	}
	if copies != nil {
		rep.EditedCopies = copies
	}
	if rep.Ahead, rep.Behind, err = c.Git.AheadBehind(base, branch); err != nil {
		return rep, fmt.Errorf("compare %s with %s: %w", r.Branch, base, err)
	}
	rep.Empty = rep.Ahead == 0 && len(rep.DirtyFiles) == 0

	mine, err := c.changedFiles(r, base)
	if err != nil {
		return rep, err
	}
	if rep.Ahead > 0 && rep.Behind > 0 {
		res, err := c.Git.MergeTree(base, branch)
		if err != nil {
			return rep, fmt.Errorf("predict merging %s into %s: %w", r.Branch, base, err)
		}
		if !res.Clean() {
			rep.Conflicts = append(rep.Conflicts, Overlap{With: rep.Base, Kind: "base", Files: res.Conflicts})
		}
	}
	if err := c.compareWithOthers(r, mine, rep.DirtyFiles, rep.Ahead > 0, &rep); err != nil {
		return rep, err
	}
	if path, found, err := c.Git.CheckedOutAt(rep.Base); err == nil && found {
		rep.BaseCheckout = path
		if files, err := git.TrackedChanges(path); err == nil {
			rep.BaseCheckoutDirty = files
		}
	}
	return rep, nil
}

// changedFiles is what a worktree's commits change since it forked from
// base.
func (c *Context) changedFiles(r *state.Record, base string) ([]string, error) {
	files, err := c.Git.ChangedFiles(base, git.BranchRef(r.Branch))
	if err != nil {
		return nil, fmt.Errorf("list files %s changes: %w", r.Name, err)
	}
	return files, nil // sorted by git.ChangedFiles
}

// compareWithOthers fills in the files r shares with every other live
// worktree, and the conflicts git predicts between their branches.
// committed is what r's commits change since its base, dirty its
// uncommitted files.
func (c *Context) compareWithOthers(r *state.Record, committed, dirty []string, hasCommits bool, rep *Report) error {
	mine := union(committed, dirty)
	recs, err := c.records()
	if err != nil {
		return err
	}
	for _, o := range recs {
		if o.Name == r.Name || !isDir(o.Path) || !c.Git.BranchExists(o.Branch) {
			continue
		}
		obase := c.baseRef(o)
		odirty, err := c.workFiles(o)
		if err != nil {
			odirty = nil // another worktree's trouble must not block this report
		}
		theirCommits, err := c.changedFiles(o, obase)
		if err != nil {
			continue
		}
		if both := intersect(mine, union(theirCommits, odirty)); len(both) > 0 {
			rep.Overlaps = append(rep.Overlaps, Overlap{With: o.Name, Kind: "worktree", Files: both})
		}
		if !hasCommits {
			continue
		}
		if ahead, _, err := c.Git.AheadBehind(obase, git.BranchRef(o.Branch)); err != nil || ahead == 0 {
			continue
		}
		res, err := c.Git.MergeTree(git.BranchRef(o.Branch), git.BranchRef(r.Branch))
		if err != nil {
			return fmt.Errorf("predict merging %s with %s: %w", r.Branch, o.Branch, err)
		}
		// Only a file both branches' own commits change is a conflict
		// between them: the rest is a base's change that one of them
		// carries (made later from a newer base), not this worktree's work.
		if files := intersect(res.Conflicts, intersect(committed, theirCommits)); len(files) > 0 {
			rep.Conflicts = append(rep.Conflicts, Overlap{With: o.Name, Kind: "worktree", Files: files})
		}
	}
	return nil
}

// union is a and b, sorted, each file once.
func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func intersect(a, b []string) []string {
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	var out []string
	for _, y := range b {
		if set[y] {
			out = append(out, y)
			delete(set, y)
		}
	}
	slices.Sort(out)
	return out
}

// ConflictsWithBase returns the files predicted to conflict with the base.
func (rep Report) ConflictsWithBase() []string {
	for _, o := range rep.Conflicts {
		if o.Kind == "base" {
			return o.Files
		}
	}
	return nil
}

// Blockers says, one line each, what would make `owt merge` refuse now;
// none means it would go through.
func (rep Report) Blockers() []string {
	var out []string
	switch {
	case rep.Busy == "waits for you":
		out = append(out, "its agent waits for you: answer it and let its turn end first")
	case rep.Busy != "":
		out = append(out, "its agent "+rep.Busy+": let its turn end first")
	}
	switch {
	case rep.BaseNotBranch:
		out = append(out, fmt.Sprintf("its base %q is not a branch; merge with --into BRANCH", rep.Base))
	case rep.BaseMissing:
		out = append(out, fmt.Sprintf("its base branch %s no longer exists; merge with --into BRANCH", rep.Base))
	}
	if rep.Empty {
		out = append(out, fmt.Sprintf("nothing to merge: %s has no commits and no changes", rep.Branch))
	} else if rep.Ahead == 0 {
		out = append(out, "no commits yet: 'owt ship' commits the changes and merges them")
	}
	if rep.OffBranch {
		out = append(out, fmt.Sprintf("HEAD in its worktree is not on %s; check it out first", rep.Branch))
	}
	if n := len(rep.DirtyFiles); n > 0 && rep.Ahead > 0 {
		out = append(out, fmt.Sprintf("%d uncommitted file(s): commit them, or ship (commit and merge)", n))
	}
	if files := rep.ConflictsWithBase(); len(files) > 0 {
		out = append(out, fmt.Sprintf("conflicts with %s in %s", rep.Base, untrusted.Some(files, 5)))
	}
	if len(rep.BaseCheckoutDirty) > 0 {
		out = append(out, fmt.Sprintf("%s is checked out in %s with uncommitted changes (%s)", rep.Base, rep.BaseCheckout, untrusted.Some(rep.BaseCheckoutDirty, 5)))
	}
	return out
}

// String is the report for people, a few short lines, as the CLI and the
// merge and delete popups show it.
func (rep Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s → %s)", rep.Name, rep.Branch, rep.Base)
	if rep.NoAgent {
		b.WriteString(", a shell (no agent)")
	} else if rep.Status != "" {
		fmt.Fprintf(&b, ", agent %s", rep.Status)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  commits:     %d ahead, %d behind %s", rep.Ahead, rep.Behind, rep.Base)
	if rep.Empty {
		b.WriteString(" (empty: nothing to merge)")
	}
	b.WriteString("\n")
	switch {
	case rep.BaseNotBranch:
		fmt.Fprintf(&b, "  base:        %s is not a branch (figures are against where the branch started)\n", rep.Base)
	case rep.BaseMissing:
		fmt.Fprintf(&b, "  base:        %s no longer exists (figures are against where the branch started)\n", rep.Base)
	}
	if rep.Missing {
		b.WriteString("  worktree:    folder missing\n")
	}
	if rep.OffBranch {
		fmt.Fprintf(&b, "  worktree:    HEAD is not on %s\n", rep.Branch)
	}
	if len(rep.DirtyFiles) == 0 {
		b.WriteString("  uncommitted: none\n")
	} else {
		fmt.Fprintf(&b, "  uncommitted: %d file(s): %s\n", len(rep.DirtyFiles), untrusted.Some(rep.DirtyFiles, 5))
	}
	if n := len(rep.EditedCopies); n > 0 {
		fmt.Fprintf(&b, "  edited copies: %s (ignored by git, changed since owt copied them in: merge and ship keep the worktree for them)\n", untrusted.Some(rep.EditedCopies, 5))
	}
	if len(rep.Overlaps) == 0 {
		b.WriteString("  overlaps:    none\n")
	}
	for _, o := range rep.Overlaps {
		fmt.Fprintf(&b, "  overlaps:    with %s: %s\n", o.With, untrusted.Some(o.Files, 5))
	}
	if len(rep.Conflicts) == 0 {
		b.WriteString("  conflicts:   none predicted\n")
	}
	for _, o := range rep.Conflicts {
		fmt.Fprintf(&b, "  conflicts:   with %s: %s\n", o.With, untrusted.Some(o.Files, 5))
	}
	if len(rep.BaseCheckoutDirty) > 0 {
		fmt.Fprintf(&b, "  %s is checked out in %s with uncommitted changes: %s\n", rep.Base, rep.BaseCheckout, untrusted.Some(rep.BaseCheckoutDirty, 5))
	}
	return strings.TrimRight(b.String(), "\n")
}

// errorsAs is errors.As for callers that only want to know.
func errorsAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
