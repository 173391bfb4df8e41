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

// ParentRef is one parent whose work a child builds on.
type ParentRef struct {
	ID, Branch, Tip string
	task            *TaskRun
}

// BaseGoneError is a start refused because the branch the task starts
// from was deleted after the run was registered: retrying cannot help,
// the user must bring it back (or skip the task).
type BaseGoneError struct{ Branch string }

func (e *BaseGoneError) Error() string {
	return fmt.Sprintf("the branch %s it starts from is gone (deleted since the run was registered); nothing started: "+
		"recreate it, then 'owt run retry', or 'owt run skip' the task", e.Branch)
}

// HostsFullError is a task placed on hosts that all run their max_agents
// already: nothing started, no attempt spent; it is tried again after
// Retry.
type HostsFullError struct {
	Hosts []string
	Retry time.Duration
}

func (e *HostsFullError) Error() string {
	return fmt.Sprintf("every host it may run on is full (%s run their max_agents); nothing started, tried again in %s",
		strings.Join(e.Hosts, ", "), e.Retry)
}

// ParentWork is each parent of pt that finished with work on a branch
// (done, or landed in into), with its branch's tip. A skipped parent
// brings nothing.
func (r *Run) ParentWork(repo git.Repo, pt *Task) ([]ParentRef, error) {
	var ps []ParentRef
	var refs []string
	for _, id := range pt.DependsOn {
		t, ok := r.Task(id)
		if !ok || (t.State != Done && t.State != Landed) || t.Branch == "" {
			continue
		}
		ps = append(ps, ParentRef{ID: id, Branch: t.Branch, task: t})
		refs = append(refs, "refs/heads/"+t.Branch)
	}
	tips, err := repo.ResolveCommits(refs)
	if err != nil {
		if ps, err = r.parentsStillThere(repo, ps); err != nil {
			return nil, err
		}
		refs = refs[:0]
		for _, p := range ps {
			refs = append(refs, "refs/heads/"+p.Branch)
		}
		if tips, err = repo.ResolveCommits(refs); err != nil {
			return nil, fmt.Errorf("the branches of its parents: %w", err)
		}
	}
	for i := range ps {
		ps[i].Tip = tips[i]
	}
	return ps, nil
}

// parentsStillThere is ps without the landed parents whose branch was
// deleted (into holds their work); a done parent whose branch was deleted
// is a *ParentWorkError: it needs the user, its children wait, no
// attempt is spent.
func (r *Run) parentsStillThere(repo git.Repo, ps []ParentRef) ([]ParentRef, error) {
	var there []ParentRef
	for _, p := range ps {
		switch {
		case repo.BranchExists(p.Branch):
			there = append(there, p)
		case p.task.State == Done:
			return nil, &ParentWorkError{Parent: p.ID, Why: GoneWhy(p.task, !r.hasRecord(p.task.Name), true)}
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

// GoneWhy is why task t needs the user once its worktree or its branch
// was deleted, and what the user can do.
func GoneWhy(t *TaskRun, worktreeGone, branchGone bool) string {
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

// ParentWorkError is a start refused because a parent's branch does not
// hold its work (any more): a child never starts from an empty branch.
type ParentWorkError struct{ Parent, Why string }

func (e *ParentWorkError) Error() string { return "parent " + e.Parent + ": " + e.Why }

// CheckParentWork refuses parents whose branch holds no change against
// their start (unless allow_empty): done on that work, they lost it since.
func (r *Run) CheckParentWork(parents []ParentRef) error {
	f, err := state.ForRepo(r.Repo).Peek()
	if err != nil {
		return fmt.Errorf("read worktree state: %w", err)
	}
	for _, p := range parents {
		rec := f.Records[p.task.Name]
		pt, ok := r.Plan.TaskByID(p.ID)
		if rec == nil || !IsDir(rec.Path) || (ok && pt.AllowEmpty) {
			continue
		}
		w, err := WorkOf(rec)
		if err != nil {
			return fmt.Errorf("parent %s: %w", p.ID, err)
		}
		if w.Empty() {
			return &ParentWorkError{Parent: p.ID, Why: w.EmptyWhy()}
		}
	}
	return nil
}

// NotStarted settles task t, which was about to start, when err says
// why it could not start without the user or a change (nothing of the
// task was made, so the attempt does not count): its parents conflict
// (it is blocked), a parent's branch lost its work (it waits, pending,
// and that parent needs the user), or the branch it starts from is gone
// (it needs the user). ok is false for any other error.
func (r *Run) NotStarted(t *TaskRun, err error, now time.Time) (evs []Event, ok bool) {
	var conflict *ParentsConflictError
	var parent *ParentWorkError
	var gone *BaseGoneError
	var full *HostsFullError
	switch {
	case errors.As(err, &conflict):
		pc := conflict.ParentConflict
		t.Conflict, t.BlockedBy = &pc, nil
		t.Why = conflict.Error() + "; nothing started: merge one parent's branch into the other's and resolve the conflict " +
			"in that parent's worktree; the task is tried again when a parent's branch moves or a parent is no longer done"
		evs = []Event{{At: now, Event: "blocked", Task: t.ID, Detail: t.Why}}
		r.SetTask(t, Blocked, now)
	case errors.As(err, &parent):
		t.Why = ""
		r.SetTask(t, Pending, now)
		evs = []Event{{At: now, Event: "pending", Task: t.ID, Detail: "not started: " + parent.Error()}}
		if p, found := r.Task(parent.Parent); found && p.State == Done {
			p.Why = parent.Why + "; its dependents wait"
			if strings.HasPrefix(parent.Why, "its worktree ") {
				p.Why = parent.Why // the judge says it so too: one verdict, told once
			}
			r.SetTask(p, NeedsYou, now)
			evs = append(evs, Event{At: now, Event: "needs_you", Task: p.ID, Detail: p.Why})
		}
	case errors.As(err, &gone):
		t.Why = gone.Error()
		r.SetTask(t, NeedsYou, now)
		evs = []Event{{At: now, Event: "needs_you", Task: t.ID, Detail: t.Why}}
	case errors.As(err, &full):
		t.Why = full.Error()
		t.NextStart = now.Add(full.Retry)
		r.SetTask(t, Backoff, now)
		evs = []Event{{At: now, Event: "waiting", Task: t.ID, Detail: t.Why}}
	default:
		return nil, false
	}
	if t.Attempt > 0 {
		t.Attempt--
	}
	return evs, true
}

// ReleaseConflicts makes pending again each task blocked on its parents'
// conflict whose parents changed since: one is no longer done (retried,
// skipped, cancelled, failed) or its branch (tips, by branch name) moved.
// The task's parents are merged afresh when it starts.
func (r *Run) ReleaseConflicts(tips map[string]string, now time.Time) []Event {
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
		r.SetTask(t, Pending, now)
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

// Indent puts prefix before each line of s.
func Indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(prefix + strings.TrimRight(line, " \t\r") + "\n")
	}
	return b.String()
}
