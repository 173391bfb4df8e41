package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// Bounds of what a child is told of each parent.
const (
	briefSubjects  = 20  // commit subjects
	briefSummary   = 600 // characters of its owt done --summary
	briefStatFiles = 20  // files named in its diffstat
	briefStatWidth = 80
)

// startPoint is where a task's worktree starts and what its agent is
// told of its parents.
type startPoint struct {
	Base   string // the branch recorded as the task's base
	Commit string // the commit its branch starts at; "" is Base's tip
	Brief  string // its parents' work, for its first prompt ("" without parents)
}

// startPoint works out where task pt starts. It makes a commit (the
// parents' merge, unreachable until the task's branch points at it) and
// nothing else; a conflict between parents is a *ParentsConflictError.
func (e *Engine) startPoint(r *run.Run, pt *run.Task) (startPoint, error) {
	sp := startPoint{Base: r.StartBase(pt)}
	repo := git.Repo{Root: r.Repo}
	if len(pt.DependsOn) == 0 {
		return sp, baseThere(repo, sp.Base)
	}
	parents, err := r.ParentWork(repo, pt)
	if err != nil {
		return sp, err
	}
	sp.Brief = e.brief(r, repo, pt, parents)
	if r.Into != "" || len(parents) == 0 {
		// into holds the parents' work, or no parent did any: the task
		// starts at the branch's tip.
		return sp, baseThere(repo, sp.Base)
	}
	if err := r.CheckParentWork(parents); err != nil {
		return sp, err
	}
	sp.Commit, err = mergeParents(repo, r.Name+"/"+pt.ID, parents)
	return sp, err
}

// baseThere is a *BaseGoneError when branch does not exist.
func baseThere(repo git.Repo, branch string) error {
	if repo.BranchExists(branch) {
		return nil
	}
	return &run.BaseGoneError{Branch: branch}
}

// saidGone reports whether t already says its worktree is gone.
func saidGone(t *run.TaskRun) bool { return strings.HasPrefix(t.Why, "its worktree "+t.Name+" ") }

// mergeParents is the commit a child of parents starts at: the one tip
// that holds all the others, else their merge.
func mergeParents(repo git.Repo, task string, parents []run.ParentRef) (string, error) {
	tips := make([]string, len(parents))
	for i, p := range parents {
		tips[i] = p.Tip
	}
	ind, err := repo.Independent(tips)
	if err != nil {
		return "", err
	}
	if len(ind) == 1 {
		return ind[0], nil
	}
	var merged []run.ParentRef
	for _, p := range parents {
		for _, c := range ind {
			if p.Tip == c {
				merged = append(merged, p)
				break
			}
		}
	}
	ids := make([]string, len(merged))
	for i, p := range merged {
		ids[i] = p.ID
	}
	msg := fmt.Sprintf("owt: start of task %s, from the work of %s", task, strings.Join(ids, ", "))
	c, err := repo.CombineCommits(ind, msg)
	var cc *git.CombineConflict
	if !errors.As(err, &cc) {
		return c, err
	}
	pc := run.ParentConflict{Parents: conflicting(repo, merged, cc.Index), Files: cc.Files, Tips: map[string]string{}}
	for _, p := range parents {
		pc.Tips[p.ID] = p.Tip
	}
	return "", &run.ParentsConflictError{ParentConflict: pc}
}

// conflicting names the parents that conflict: the one merged at index k
// and each earlier one it conflicts with on its own; all of them up to k
// when only their combination conflicts.
func conflicting(repo git.Repo, merged []run.ParentRef, k int) []string {
	var ids []string
	for _, p := range merged[:k] {
		if m, err := repo.MergeTree(p.Tip, merged[k].Tip); err == nil && !m.Clean() {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		for _, p := range merged[:k] {
			ids = append(ids, p.ID)
		}
	}
	return append(ids, merged[k].ID)
}

// recheckConflicts tries again the tasks blocked on their parents'
// conflict once something changed. It looks at git only while such a
// task exists.
func (e *Engine) recheckConflicts(r *run.Run, now time.Time) error {
	var refs, branches []string
	for _, t := range r.Tasks {
		if t.State != run.Blocked || t.Conflict == nil {
			continue
		}
		for id := range t.Conflict.Tips {
			if p, ok := r.Task(id); ok && p.Branch != "" {
				refs, branches = append(refs, "refs/heads/"+p.Branch), append(branches, p.Branch)
			}
		}
	}
	if len(refs) == 0 {
		return nil
	}
	tips := map[string]string{}
	shas, err := git.Repo{Root: r.Repo}.ResolveCommits(refs)
	if err != nil {
		return err // a parent's branch is gone: the task stays blocked, its Why says what to do
	}
	for i, b := range branches {
		tips[b] = shas[i]
	}
	return e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
		return cur.ReleaseConflicts(tips, now), nil
	})
}

// brief is what a child is told of its parents: each one's id, branch
// and state, what it said it did (owt done --summary), its commit
// subjects and diffstat since it started. Each part is bounded; what git
// cannot tell is left out, and logged.
func (e *Engine) brief(r *run.Run, repo git.Repo, pt *run.Task, parents []run.ParentRef) string {
	var recs map[string]*state.Record
	if f, err := state.ForRepo(r.Repo).Peek(); err == nil {
		recs = f.Records
	}
	byID := map[string]run.ParentRef{}
	for _, p := range parents {
		byID[p.ID] = p
	}
	var b strings.Builder
	b.WriteString("This task builds on the tasks it depends on. ")
	switch {
	case r.Into != "":
		fmt.Fprintf(&b, "Your worktree starts from %s, where their work landed.\n", r.Into)
	case len(parents) > 1:
		b.WriteString("Your worktree starts from a merge of their branches.\n")
	default:
		b.WriteString("Your worktree starts from their work.\n")
	}
	for _, id := range pt.DependsOn {
		t, ok := r.Task(id)
		if !ok {
			continue
		}
		p, worked := byID[id]
		if !worked {
			fmt.Fprintf(&b, "\nTask %s (%s): none of its work is in your worktree.\n", id, t.State)
			continue
		}
		fmt.Fprintf(&b, "\nTask %s (branch %s, %s):\n", id, p.Branch, t.State)
		if t.Evidence != nil && strings.TrimSpace(t.Evidence.Summary.Typed()) != "" {
			b.WriteString("  Its summary:\n" + quote(clip(t.Evidence.Summary.Typed(), briefSummary)))
		}
		from := git.BranchRef(r.Base)
		if rec := recs[t.Name]; rec != nil && rec.BaseCommit != "" {
			from = rec.BaseCommit
		}
		if mb, err := repo.MergeBase(from, p.Tip); err == nil {
			from = mb
		}
		if subj, err := repo.Subjects(from, p.Tip); err != nil {
			e.logf(r.Repo, "", "run %s: task %s: commits of parent %s: %v", r.Name, pt.ID, id, err)
		} else if len(subj) > 0 {
			b.WriteString("  Its commits:\n")
			for i, s := range subj {
				if i == briefSubjects {
					fmt.Fprintf(&b, "  - … and %d more\n", len(subj)-i)
					break
				}
				b.WriteString("  - " + clip(s, 200) + "\n")
			}
		}
		if stat, err := repo.DiffStatBetween(from, p.Tip, briefStatWidth, briefStatFiles); err != nil {
			e.logf(r.Repo, "", "run %s: task %s: diffstat of parent %s: %v", r.Name, pt.ID, id, err)
		} else if stat != "" {
			b.WriteString("  Its changes:\n" + run.Indent(stat, "    "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// clip cuts s to at most n runes, saying so.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + " […]"
	}
	return s
}

// quote marks each line as the parent's words (and keeps a line of them
// from reading as anything else).
func quote(s string) string { return run.Indent(s, "    > ") }
