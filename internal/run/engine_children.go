package run

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// Children start from their parents' work. With into, a child starts from
// into's tip once its parents landed there (startBase). Without into, it
// starts from its parents' branches merged in the object database (git
// merge-tree, never in anyone's checkout): one parent's tip as it is, two
// or more merged into one commit. Parents that conflict with each other
// block the child before anything of it is made. Either way the child is
// told, in its first prompt, what each parent did.

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

// ParentConflict is why a task is blocked before it started: the
// branches of its parents conflict with each other. Tips are the parents'
// commits that conflicted: when one moves, or a parent is no longer done,
// the task is tried again.
type ParentConflict struct {
	Parents []string          `json:"parents"`
	Files   []string          `json:"files"`
	Tips    map[string]string `json:"tips"`
}

// ParentsConflictError is a start refused because the parents' work
// cannot be merged.
type ParentsConflictError struct{ ParentConflict }

func (e *ParentsConflictError) Error() string {
	return fmt.Sprintf("its parents %s conflict in %s", strings.Join(e.Parents, " and "), strings.Join(e.Files, ", "))
}

// parentRef is one parent whose work a child builds on.
type parentRef struct {
	id, branch, tip string
	task            *TaskRun
}

// startPoint works out where task pt starts. It makes a commit (the
// parents' merge, unreachable until the task's branch points at it) and
// nothing else; a conflict between parents is a *ParentsConflictError.
func (e *Engine) startPoint(r *Run, pt *Task) (startPoint, error) {
	sp := startPoint{Base: r.startBase(pt)}
	repo := git.Repo{Root: r.Repo}
	if len(pt.DependsOn) == 0 {
		return sp, baseThere(repo, sp.Base)
	}
	parents, err := r.parentWork(repo, pt)
	if err != nil {
		return sp, err
	}
	sp.Brief = e.brief(r, repo, pt, parents)
	if r.Into != "" || len(parents) == 0 {
		// into holds the parents' work, or no parent did any: the task
		// starts at the branch's tip.
		return sp, baseThere(repo, sp.Base)
	}
	if err := r.checkParentWork(parents); err != nil {
		return sp, err
	}
	sp.Commit, err = mergeParents(repo, r.Name+"/"+pt.ID, parents)
	return sp, err
}

// BaseGoneError is a start refused because the branch the task starts
// from was deleted after the run was registered: retrying cannot help,
// the user must bring it back (or skip the task).
type BaseGoneError struct{ Branch string }

func (e *BaseGoneError) Error() string {
	return fmt.Sprintf("the branch %s it starts from is gone (deleted since the run was registered); nothing started: "+
		"recreate it, then 'owt run retry', or 'owt run skip' the task", e.Branch)
}

// baseThere is a *BaseGoneError when branch does not exist.
func baseThere(repo git.Repo, branch string) error {
	if repo.BranchExists(branch) {
		return nil
	}
	return &BaseGoneError{Branch: branch}
}

// parentWork is each parent of pt that finished with work on a branch
// (done, or landed in into), with its branch's tip. A skipped parent
// brings nothing.
func (r *Run) parentWork(repo git.Repo, pt *Task) ([]parentRef, error) {
	var ps []parentRef
	var refs []string
	for _, id := range pt.DependsOn {
		t, ok := r.Task(id)
		if !ok || (t.State != Done && t.State != Landed) || t.Branch == "" {
			continue
		}
		ps = append(ps, parentRef{id: id, branch: t.Branch, task: t})
		refs = append(refs, "refs/heads/"+t.Branch)
	}
	tips, err := repo.ResolveCommits(refs)
	if err != nil {
		if ps, err = r.parentsStillThere(repo, ps); err != nil {
			return nil, err
		}
		refs = refs[:0]
		for _, p := range ps {
			refs = append(refs, "refs/heads/"+p.branch)
		}
		if tips, err = repo.ResolveCommits(refs); err != nil {
			return nil, fmt.Errorf("the branches of its parents: %w", err)
		}
	}
	for i := range ps {
		ps[i].tip = tips[i]
	}
	return ps, nil
}

// parentsStillThere is ps without the landed parents whose branch was
// deleted (into holds their work); a done parent whose branch was deleted
// is a *ParentWorkError: it needs the user, its children wait, no
// attempt is spent.
func (r *Run) parentsStillThere(repo git.Repo, ps []parentRef) ([]parentRef, error) {
	var there []parentRef
	for _, p := range ps {
		switch {
		case repo.BranchExists(p.branch):
			there = append(there, p)
		case p.task.State == Done:
			return nil, &ParentWorkError{Parent: p.id, Why: goneWhy(p.task, !r.hasRecord(p.task.Name), true)}
		}
	}
	return there, nil
}

// hasRecord reports whether owt still has the worktree named name (true
// when its state cannot be read: nothing is claimed gone on a guess).
func (r *Run) hasRecord(name string) bool {
	f, err := state.ForRepo(r.Repo).Peek()
	return err != nil || f.Records[name] != nil
}

// saidGone reports whether t already says its worktree is gone.
func saidGone(t *TaskRun) bool { return strings.HasPrefix(t.Why, "its worktree "+t.Name+" ") }

// goneWhy is why task t needs the user once its worktree or its branch
// was deleted, and what the user can do.
func goneWhy(t *TaskRun, worktreeGone, branchGone bool) string {
	var what string
	switch {
	case worktreeGone && branchGone:
		what = fmt.Sprintf("its worktree %s and its branch %s are gone", t.Name, t.Branch)
	case branchGone:
		what = fmt.Sprintf("its branch %s is gone", t.Branch)
	default:
		what = "its worktree " + t.Name + " is gone"
	}
	return what + ": 'owt run retry' does the task again, 'owt run skip' lets its dependents go on without it"
}

// mergeParents is the commit a child of parents starts at: the one tip
// that holds all the others, else their merge.
func mergeParents(repo git.Repo, task string, parents []parentRef) (string, error) {
	tips := make([]string, len(parents))
	for i, p := range parents {
		tips[i] = p.tip
	}
	ind, err := repo.Independent(tips)
	if err != nil {
		return "", err
	}
	if len(ind) == 1 {
		return ind[0], nil
	}
	var merged []parentRef
	for _, p := range parents {
		for _, c := range ind {
			if p.tip == c {
				merged = append(merged, p)
				break
			}
		}
	}
	ids := make([]string, len(merged))
	for i, p := range merged {
		ids[i] = p.id
	}
	msg := fmt.Sprintf("owt: start of task %s, from the work of %s", task, strings.Join(ids, ", "))
	c, err := repo.CombineCommits(ind, msg)
	var cc *git.CombineConflict
	if !errors.As(err, &cc) {
		return c, err
	}
	pc := ParentConflict{Parents: conflicting(repo, merged, cc.Index), Files: cc.Files, Tips: map[string]string{}}
	for _, p := range parents {
		pc.Tips[p.id] = p.tip
	}
	return "", &ParentsConflictError{pc}
}

// conflicting names the parents that conflict: the one merged at index k
// and each earlier one it conflicts with on its own; all of them up to k
// when only their combination conflicts.
func conflicting(repo git.Repo, merged []parentRef, k int) []string {
	var ids []string
	for _, p := range merged[:k] {
		if m, err := repo.MergeTree(p.tip, merged[k].tip); err == nil && !m.Clean() {
			ids = append(ids, p.id)
		}
	}
	if len(ids) == 0 {
		for _, p := range merged[:k] {
			ids = append(ids, p.id)
		}
	}
	return append(ids, merged[k].id)
}

// ParentWorkError is a start refused because a parent's branch does not
// hold its work (any more): a child never starts from an empty branch.
type ParentWorkError struct{ Parent, Why string }

func (e *ParentWorkError) Error() string { return "parent " + e.Parent + ": " + e.Why }

// checkParentWork refuses parents whose branch holds no change against
// their start (unless allow_empty): done on that work, they lost it since.
func (r *Run) checkParentWork(parents []parentRef) error {
	f, err := state.ForRepo(r.Repo).Peek()
	if err != nil {
		return fmt.Errorf("read worktree state: %w", err)
	}
	for _, p := range parents {
		rec := f.Records[p.task.Name]
		pt, ok := r.Plan.TaskByID(p.id)
		if rec == nil || !isDir(rec.Path) || (ok && pt.AllowEmpty) {
			continue
		}
		w, err := workOf(rec)
		if err != nil {
			return fmt.Errorf("parent %s: %w", p.id, err)
		}
		if w.empty() {
			return &ParentWorkError{Parent: p.id, Why: w.emptyWhy()}
		}
	}
	return nil
}

// notStarted settles task t, which was about to start, when err says
// why it could not start without the user or a change (nothing of the
// task was made, so the attempt does not count): its parents conflict
// (it is blocked), a parent's branch lost its work (it waits, pending,
// and that parent needs the user), or the branch it starts from is gone
// (it needs the user). ok is false for any other error.
func (r *Run) notStarted(t *TaskRun, err error, now time.Time) (evs []Event, ok bool) {
	var conflict *ParentsConflictError
	var parent *ParentWorkError
	var gone *BaseGoneError
	switch {
	case errors.As(err, &conflict):
		pc := conflict.ParentConflict
		t.Conflict, t.BlockedBy = &pc, nil
		t.Why = conflict.Error() + "; nothing started: merge one parent's branch into the other's and resolve the conflict " +
			"in that parent's worktree; the task is tried again when a parent's branch moves or a parent is no longer done"
		evs = []Event{{At: now, Event: "blocked", Task: t.ID, Detail: t.Why}}
		r.setTask(t, Blocked, now)
	case errors.As(err, &parent):
		t.Why = ""
		r.setTask(t, Pending, now)
		evs = []Event{{At: now, Event: "pending", Task: t.ID, Detail: "not started: " + parent.Error()}}
		if p, found := r.Task(parent.Parent); found && p.State == Done {
			p.Why = parent.Why + "; its dependents wait"
			if strings.HasPrefix(parent.Why, "its worktree ") {
				p.Why = parent.Why // the judge says it so too: one verdict, told once
			}
			r.setTask(p, NeedsYou, now)
			evs = append(evs, Event{At: now, Event: "needs_you", Task: p.ID, Detail: p.Why})
		}
	case errors.As(err, &gone):
		t.Why = gone.Error()
		r.setTask(t, NeedsYou, now)
		evs = []Event{{At: now, Event: "needs_you", Task: t.ID, Detail: t.Why}}
	default:
		return nil, false
	}
	if t.Attempt > 0 {
		t.Attempt--
	}
	return evs, true
}

// recheckConflicts tries again the tasks blocked on their parents'
// conflict once something changed. It looks at git only while such a
// task exists.
func (e *Engine) recheckConflicts(r *Run, now time.Time) error {
	var refs, branches []string
	for _, t := range r.Tasks {
		if t.State != Blocked || t.Conflict == nil {
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
	return e.Store.Update(r.Name, func(cur *Run) ([]Event, error) {
		return cur.releaseConflicts(tips, now), nil
	})
}

// releaseConflicts makes pending again each task blocked on its parents'
// conflict whose parents changed since: one is no longer done (retried,
// skipped, cancelled, failed) or its branch (tips, by branch name) moved.
// The task's parents are merged afresh when it starts.
func (r *Run) releaseConflicts(tips map[string]string, now time.Time) []Event {
	var evs []Event
	for _, t := range r.Tasks {
		if t.State != Blocked || t.Conflict == nil {
			continue
		}
		why := r.parentsChanged(t, tips)
		if why == "" {
			continue
		}
		t.Conflict, t.Why = nil, ""
		r.setTask(t, Pending, now)
		evs = append(evs, Event{At: now, Event: "released", Task: t.ID, Detail: why})
	}
	if len(evs) > 0 {
		evs = append(evs, r.Reblock(now)...)
	}
	return evs
}

// parentsChanged says what changed in t's parents since they conflicted,
// "" when nothing did.
func (r *Run) parentsChanged(t *TaskRun, tips map[string]string) string {
	pt, ok := r.Plan.TaskByID(t.ID)
	if !ok {
		return ""
	}
	for _, id := range pt.DependsOn {
		p, ok := r.Task(id)
		if !ok {
			continue
		}
		was, merged := t.Conflict.Tips[id]
		switch {
		case p.State != Done && p.State != Landed:
			return fmt.Sprintf("parent %s is %s now", id, p.State)
		case !merged:
			return fmt.Sprintf("parent %s is done now", id)
		case tips[p.Branch] != "" && tips[p.Branch] != was:
			return fmt.Sprintf("the branch of parent %s moved", id)
		}
	}
	return ""
}

// brief is what a child is told of its parents: each one's id, branch
// and state, what it said it did (owt done --summary), its commit
// subjects and diffstat since it started. Each part is bounded; what git
// cannot tell is left out, and logged.
func (e *Engine) brief(r *Run, repo git.Repo, pt *Task, parents []parentRef) string {
	var recs map[string]*state.Record
	if f, err := state.ForRepo(r.Repo).Peek(); err == nil {
		recs = f.Records
	}
	byID := map[string]parentRef{}
	for _, p := range parents {
		byID[p.id] = p
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
		fmt.Fprintf(&b, "\nTask %s (branch %s, %s):\n", id, p.branch, t.State)
		if t.Evidence != nil && strings.TrimSpace(t.Evidence.Summary) != "" {
			b.WriteString("  Its summary:\n" + quote(clip(t.Evidence.Summary, briefSummary)))
		}
		from := git.BranchRef(r.Base)
		if rec := recs[t.Name]; rec != nil && rec.BaseCommit != "" {
			from = rec.BaseCommit
		}
		if mb, err := repo.MergeBase(from, p.tip); err == nil {
			from = mb
		}
		if subj, err := repo.Subjects(from, p.tip); err != nil {
			e.logf("run %s: task %s: commits of parent %s: %v", r.Name, pt.ID, id, err)
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
		if stat, err := repo.DiffStatBetween(from, p.tip, briefStatWidth, briefStatFiles); err != nil {
			e.logf("run %s: task %s: diffstat of parent %s: %v", r.Name, pt.ID, id, err)
		} else if stat != "" {
			b.WriteString("  Its changes:\n" + indent(stat, "    "))
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
func quote(s string) string { return indent(s, "    > ") }

func indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(prefix + strings.TrimRight(line, " \t\r") + "\n")
	}
	return b.String()
}
