package land

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// CleanupOptions say which worktrees owt cleanup removes.
type CleanupOptions struct {
	// Merged removes worktrees whose branch is merged into its base (the
	// default when Stale is not set).
	Merged bool
	// Stale removes worktrees untouched for StaleAfter: no commit, status
	// change or file change in that time. Only when nothing would be lost,
	// unless Force.
	Stale      bool
	StaleAfter time.Duration
	Force      bool
	Now        time.Time
	// AgentAlive reports whether a worktree's agent still runs (its
	// session live, not exited); such a worktree is kept unless
	// IncludeLive. nil: only the recorded status counts.
	AgentAlive  func(*state.Record) bool
	IncludeLive bool
}

// CleanupItem is the verdict on one worktree.
type CleanupItem struct {
	Name   string `json:"name"`
	Branch string `json:"branch"`
	Remove bool   `json:"remove"`
	Reason string `json:"reason"` // why it goes, or why it stays
	// BranchTip is the commit the verdict was made on; the teardown
	// refuses if the branch moved since.
	BranchTip string `json:"-"`
	// Discards is set when removing it throws work away (--stale --force).
	Discards bool `json:"discards,omitempty"`
}

// PlanCleanup judges every worktree of the repository. Nothing changes:
// the CLI removes the ones marked Remove (or only lists them, --dry-run).
func (c *Context) PlanCleanup(o CleanupOptions) ([]CleanupItem, error) {
	if !o.Merged && !o.Stale {
		o.Merged = true
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	recs, err := c.records()
	if err != nil {
		return nil, err
	}
	items := []CleanupItem{}
	for _, r := range recs {
		item, err := c.judge(r, o)
		if err != nil {
			item = CleanupItem{Name: r.Name, Branch: r.Branch, Reason: "kept: " + err.Error()}
		}
		if r.InPlace && item.Remove {
			item.Reason += "; it works in place: only its session and record go, your checkout stays on " + r.Branch
		}
		items = append(items, item)
	}
	return items, nil
}

func (c *Context) judge(r *state.Record, o CleanupOptions) (CleanupItem, error) {
	it := CleanupItem{Name: r.Name, Branch: r.Branch}
	if !c.Git.BranchExists(r.Branch) {
		it.Reason = "kept: its branch is gone ('owt doctor' looks into it)"
		return it, nil
	}
	tip, err := c.Git.ResolveCommit("refs/heads/" + r.Branch)
	if err != nil {
		return it, err
	}
	it.BranchTip = tip
	work, err := c.workFiles(r)
	if err != nil {
		return it, fmt.Errorf("check for uncommitted work: %w", err)
	}
	copies, err := c.editedCopies(r)
	if err != nil {
		return it, err
	}
	detached := 0
	if isDir(r.Path) {
		if detached, err = git.UnreferencedCommits(r.Path); err != nil {
			return it, err
		}
	}
	live := c.liveAgent(r, o)
	empty, err := c.empty(r, tip)
	if err != nil {
		return it, err
	}

	if o.Merged && !empty {
		merged, how, err := c.merged(r, tip)
		if err != nil {
			return it, err
		}
		if merged {
			switch {
			case len(work) > 0:
				it.Reason = fmt.Sprintf("kept: %s, but %d uncommitted file(s): %s", how, len(work), untrusted.Some(work, 3))
			case len(copies) > 0:
				it.Reason = fmt.Sprintf("kept: %s, but ignored file(s) owt copied in changed since: %s", how, untrusted.Some(copies, 3))
			case detached > 0:
				it.Reason = fmt.Sprintf("kept: %s, but %d commit(s) on a detached HEAD that no branch holds", how, detached)
			case live != "":
				it.Reason = fmt.Sprintf("kept: %s, but %s", how, live)
			default:
				it.Remove, it.Reason = true, how
			}
			return it, nil
		}
	}
	if o.Stale {
		last := c.lastTouched(r, tip, work)
		age := o.Now.Sub(last)
		if age >= o.StaleAfter {
			days := fmt.Sprintf("untouched for %s", humanDays(age))
			ahead, _, err := c.Git.AheadBehind(c.baseRef(r), git.BranchRef(r.Branch))
			if err != nil {
				return it, err
			}
			var loss []string
			if ahead > 0 {
				loss = append(loss, fmt.Sprintf("%d commit(s) not in %s", ahead, r.Base))
			}
			if len(work) > 0 {
				loss = append(loss, fmt.Sprintf("%d uncommitted file(s)", len(work)))
			}
			if len(copies) > 0 {
				loss = append(loss, fmt.Sprintf("edited ignored copies (%s)", untrusted.Some(copies, 3)))
			}
			if detached > 0 {
				loss = append(loss, fmt.Sprintf("%d commit(s) on a detached HEAD", detached))
			}
			switch {
			case live != "":
				it.Reason = fmt.Sprintf("kept: %s, but %s", days, live)
			case len(loss) == 0:
				it.Remove, it.Reason = true, days
			case o.Force:
				it.Remove, it.Discards = true, true
				it.Reason = fmt.Sprintf("%s (discards %s)", days, joinAnd(loss))
			default:
				it.Reason = fmt.Sprintf("kept: %s, but it holds %s (--force removes it anyway)", days, joinAnd(loss))
			}
			return it, nil
		}
		it.Reason = fmt.Sprintf("kept: touched %s ago", humanDays(age))
		return it, nil
	}
	if empty {
		it.Reason = "kept: empty, no commits of its own"
		return it, nil
	}
	it.Reason = "kept: not merged into " + r.Base
	return it, nil
}

// liveAgent says why the agent of r must not be removed under it — it
// runs in a live session, or its record says it is busy — or "" when
// nothing stands in the way (or --include-live said to go ahead).
func (c *Context) liveAgent(r *state.Record, o CleanupOptions) string {
	if o.IncludeLive {
		return ""
	}
	if o.AgentAlive != nil && o.AgentAlive(r) {
		if r.NoAgent {
			return "a program runs in its shell (--include-live removes it)"
		}
		return fmt.Sprintf("its agent is %s in a live session (--include-live removes it)", r.Status)
	}
	if r.Status == state.Starting || r.Status == state.Working || r.Status == state.Waiting {
		return fmt.Sprintf("the agent is %s (--include-live removes it)", r.Status)
	}
	return ""
}

// empty reports whether the branch never got a commit of its own: it is
// where it started, or behind it (a sync of an empty branch moves that
// start along, recording it before it moves the branch).
func (c *Context) empty(r *state.Record, tip string) (bool, error) {
	if r.BaseCommit != "" {
		return tip == r.BaseCommit || c.Git.IsAncestor(tip, r.BaseCommit), nil
	}
	if !c.Git.BranchExists(r.Base) {
		return false, nil
	}
	baseTip, err := c.Git.ResolveCommit("refs/heads/" + r.Base)
	return tip == baseTip, err
}

// merged reports whether the branch's work is in its base: the branch is
// an ancestor of the base and made commits, or (squash and rebase merges)
// merging it into the base would change nothing.
func (c *Context) merged(r *state.Record, tip string) (bool, string, error) {
	if !c.Git.BranchExists(r.Base) {
		return false, "", nil
	}
	baseTip, err := c.Git.ResolveCommit("refs/heads/" + r.Base)
	if err != nil {
		return false, "", err
	}
	if c.Git.IsAncestor(tip, baseTip) {
		// A branch that never moved from where it started is empty, not merged.
		if tip == r.BaseCommit || (r.BaseCommit == "" && tip == baseTip) {
			return false, "", nil
		}
		return true, "merged into " + r.Base, nil
	}
	mt, err := c.Git.MergeTree(baseTip, tip)
	if err != nil {
		return false, "", err
	}
	baseTree, err := c.Git.TreeOf(baseTip)
	if err != nil {
		return false, "", err
	}
	if mt.Clean() && mt.Tree == baseTree {
		return true, "its changes are already in " + r.Base, nil
	}
	return false, "", nil
}

// lastTouched is the latest sign of life: creation, a status change, a
// commit on the branch, or a change to an uncommitted file.
func (c *Context) lastTouched(r *state.Record, tip string, work []string) time.Time {
	last := r.CreatedAt
	if r.StatusSince.After(last) {
		last = r.StatusSince
	}
	if tip != r.BaseCommit {
		if t, err := c.Git.LastCommitTime(tip); err == nil && t.After(last) {
			last = t
		}
	}
	for _, f := range work {
		if fi, err := os.Lstat(filepath.Join(r.Path, filepath.FromSlash(f))); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	return last
}

func humanDays(d time.Duration) string {
	days := int(d.Hours() / 24)
	if days == 1 {
		return "1 day"
	}
	if days == 0 && d > 0 {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", days)
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
