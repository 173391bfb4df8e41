package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// Loss is the work a delete would destroy.
type Loss struct {
	DirtyFiles []string `json:"dirty_files"`
	Unmerged   int      `json:"unmerged_commits"`
}

// Empty reports whether nothing would be lost.
func (l Loss) Empty() bool { return len(l.DirtyFiles) == 0 && l.Unmerged == 0 }

func (l Loss) String() string {
	var parts []string
	if n := len(l.DirtyFiles); n > 0 {
		shown := l.DirtyFiles
		if n > 5 {
			shown = shown[:5]
		}
		s := fmt.Sprintf("%d uncommitted file(s): %s", n, strings.Join(shown, ", "))
		if n > 5 {
			s += ", …"
		}
		parts = append(parts, s)
	}
	if l.Unmerged > 0 {
		parts = append(parts, fmt.Sprintf("%d commit(s) not in its base", l.Unmerged))
	}
	return strings.Join(parts, " and ")
}

// ErrWouldLoseWork is returned by Delete when work would be lost without force.
var ErrWouldLoseWork = errors.New("would lose work")

// WhatWouldBeLost inspects a worktree before deleting it.
func (w *Workspace) WhatWouldBeLost(r *state.Record) (Loss, error) {
	var l Loss
	if _, err := os.Stat(r.Path); err == nil {
		dirty, err := WorkFiles(r)
		if err != nil {
			return l, fmt.Errorf("check %s for uncommitted work: %w", r.Path, err)
		}
		l.DirtyFiles = dirty
	}
	if w.Repo.BranchExists(r.Branch) {
		base := r.Base
		if !w.Repo.BranchExists(base) && r.BaseCommit != "" {
			base = r.BaseCommit
		}
		ahead, _, err := w.Repo.AheadBehind(base, r.Branch)
		if err != nil {
			return l, fmt.Errorf("compare %s with %s: %w", r.Branch, base, err)
		}
		l.Unmerged = ahead
	}
	return l, nil
}

// DeleteOptions are the inputs of owt delete.
type DeleteOptions struct {
	Force      bool
	KeepBranch bool
}

// Delete kills the session, removes the worktree, deletes the branch and
// drops the record. Without Force it refuses, changing nothing, when
// uncommitted files or commits not in the base would be lost.
func (w *Workspace) Delete(name string, o DeleteOptions) error {
	r, err := w.Get(name)
	if err != nil {
		return err
	}
	loss, err := w.WhatWouldBeLost(r)
	if err != nil && !o.Force {
		return err
	}
	if !loss.Empty() && !o.Force {
		return fmt.Errorf("%s %w: %s (commit or merge it first, or use --force)", name, ErrWouldLoseWork, loss)
	}
	if r.SessionID != "" {
		if s, ok, _ := w.Tmux.FindSession(r.Session); ok && s.ID == r.SessionID {
			if err := w.Tmux.KillSession(s.ID); err != nil {
				return fmt.Errorf("kill session %s: %w", r.Session, err)
			}
		}
	}
	if err := w.Repo.RemoveWorktree(r.Path, o.Force); err != nil {
		return fmt.Errorf("remove worktree %s: %w", r.Path, err)
	}
	if !o.KeepBranch && w.Repo.BranchExists(r.Branch) {
		// Unmerged commits were checked above (or --force was given), so -D.
		if err := w.Repo.DeleteBranch(r.Branch, true); err != nil {
			return fmt.Errorf("delete branch %s: %w", r.Branch, err)
		}
	}
	w.dropRecord(name)
	w.publishSummary()
	_ = w.Tmux.RefreshStatus()
	return nil
}

// WorkFiles are the worktree's uncommitted files that are work: files owt
// copied in (.env …) and that still match the main checkout's copy are not.
func WorkFiles(r *state.Record) ([]string, error) {
	dirty, err := git.DirtyFiles(r.Path)
	if err != nil || len(r.Copied) == 0 {
		return dirty, err
	}
	copied := map[string]bool{}
	for _, c := range r.Copied {
		copied[c] = true
	}
	out := dirty[:0]
	for _, d := range dirty {
		if copied[d] && sameFile(filepath.Join(r.Repo, d), filepath.Join(r.Path, d)) {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
