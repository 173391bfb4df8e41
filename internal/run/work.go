// What a run task's own branch holds against the task's start, read from
// git: its commits and tree, and where its worktree's HEAD is. These
// readings are the evidence the judge decides on (an Observation) and what
// the engine lands, builds on and offers as a pull request.

package run

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// A task's work is what its own branch holds against the task's start:
// commits on the branch (not wherever HEAD went) and a tree that differs
// from the start's (an empty commit, or a file added and removed again,
// is no work). A task is judged, landed, built on and offered as a pull
// request only on that. When it is judged done, and before it lands, the
// base's own commits, and into's, are not the task's work either: an
// agent that ran git pull or git merge main has only brought them in, so
// the branch is read against its start and them as they are now
// (judgedWorkOf).

// BranchWork is a task's branch against its start, and where the HEAD of
// its worktree is.
type BranchWork struct {
	Branch    string
	Gone      bool   // the branch does not exist
	Head      string // the branch HEAD is on in the worktree; "" when detached
	HeadAt    string // HEAD's commit
	Commits   int    // commits on the branch ahead of the start (and of the base and into, for judgedWorkOf)
	Unchanged bool   // the branch's tree is the start's (or, merged into the base or into, it changes nothing)
	Base      string // the branch (base or into) whose commits made the branch seem to hold work, "" for none
	Tree      string // HEAD's tree
}

// startOf is the commit (else the branch) a worktree's task started from.
func startOf(rec *state.Record) string {
	if rec.BaseCommit != "" {
		return rec.BaseCommit
	}
	return git.BranchRef(rec.Base)
}

// WorkOf reads the task's branch and its worktree's HEAD.
func WorkOf(rec *state.Record) (BranchWork, error) { return readWork(rec, nil, nil) }

// judgedWorkOf is workOf with what the base, and the run's into, brought
// since the start (the agent merged them, or pulled) not counted as the
// task's work.
func judgedWorkOf(rec *state.Record, into string) (BranchWork, error) {
	return readWork(rec, judgedLess(rec, into), nil)
}

// judgedLess are the branches whose commits judgedWorkOf does not count.
func judgedLess(rec *state.Record, into string) []string {
	less := []string{rec.Base}
	if into != "" && into != rec.Base {
		less = append(less, into)
	}
	return less
}

// WorkMemo keeps the last branch reading of each worktree (and set of
// branches left out): what is read after the objects are resolved
// (commits, merge trees) depends on their ids alone, so while none moved
// a repeat reading costs the HEAD and object reads only. The zero value
// is ready; a nil *workMemo keeps nothing.
type WorkMemo struct {
	last map[string]memoWork // by worktree path and branches left out
}

// memoWork is one reading's result, under the ids it was made on.
type memoWork struct {
	ids       string
	commits   int
	unchanged bool
	base      string
}

// workMemoMax bounds the readings kept: past it they are all let go.
const workMemoMax = 512

// JudgedWorkOf is judgedWorkOf, reusing m's reading while nothing moved.
func (m *WorkMemo) JudgedWorkOf(rec *state.Record, into string) (BranchWork, error) {
	return readWork(rec, judgedLess(rec, into), m)
}

// WorkOf is workOf, reusing m's reading while nothing moved.
func (m *WorkMemo) WorkOf(rec *state.Record) (BranchWork, error) { return readWork(rec, nil, m) }

// readWork reads the task's branch against its start, and against each
// branch of less that moved on from the start; memo (nil: none) gives the
// result again when the ids it depends on did not change.
func readWork(rec *state.Record, less []string, memo *WorkMemo) (BranchWork, error) {
	w := BranchWork{Branch: rec.Branch}
	head, err := git.CurrentBranch(rec.Path)
	if err != nil {
		return w, fmt.Errorf("HEAD: %w", err)
	}
	w.Head = head
	ref := "refs/heads/" + rec.Branch
	from := startOf(rec)
	revs := []string{"HEAD", "HEAD^{tree}", ref, ref + "^{tree}", from + "^{tree}", from + "^{commit}"}
	var names []string // less, each that names something
	for _, b := range less {
		if b != "" {
			names = append(names, b)
			revs = append(revs, b+"^{commit}", b+"^{tree}")
		}
	}
	objs, err := git.Objects(rec.Path, revs)
	if err != nil {
		return w, err
	}
	w.HeadAt, w.Tree = objs[0], objs[1]
	if objs[2] == "" {
		w.Gone = true
		return w, nil
	}
	if objs[4] == "" {
		return w, fmt.Errorf("the task's start %s: no such commit", from)
	}
	slot, ids := rec.Path+"\x00"+strings.Join(names, "\x00"), strings.Join(objs[2:], " ")
	if m, ok := memo.get(slot); ok && m.ids == ids {
		w.Commits, w.Unchanged, w.Base = m.commits, m.unchanged, m.base
		return w, nil
	}
	if err := branchCommits(&w, rec.Path, ref, from, objs, names); err != nil {
		return w, err
	}
	memo.put(slot, memoWork{ids: ids, commits: w.Commits, unchanged: w.Unchanged, base: w.Base})
	return w, nil
}

func (m *WorkMemo) get(slot string) (memoWork, bool) {
	if m == nil {
		return memoWork{}, false
	}
	mw, ok := m.last[slot]
	return mw, ok
}

func (m *WorkMemo) put(slot string, mw memoWork) {
	if m == nil {
		return
	}
	if m.last == nil || len(m.last) >= workMemoMax {
		m.last = map[string]memoWork{}
	}
	m.last[slot] = mw
}

// branchCommits sets w's commits, and whether they change anything, from
// the objects readWork resolved (objs, names as there): a function of
// their ids alone.
func branchCommits(w *BranchWork, path, ref, from string, objs, names []string) (err error) {
	w.Unchanged = objs[3] == objs[4]
	repo := git.Repo{Root: path}
	// A branch of less that moved on since the start: what it brought is
	// not the task's work, whether or not the branch merged it.
	var moved, movedNames, trees []string
	for i, b := range names {
		if tip := objs[6+2*i]; tip != "" && tip != objs[5] && repo.IsAncestor(objs[5], tip) {
			moved, movedNames, trees = append(moved, tip), append(movedNames, b), append(trees, objs[7+2*i])
		}
	}
	if len(moved) == 0 {
		if w.Commits, _, err = repo.AheadBehind(from, ref); err != nil {
			return fmt.Errorf("count commits: %w", err)
		}
		return nil
	}
	if w.Commits, err = repo.CountNotIn(ref, append([]string{objs[5]}, moved...)); err != nil {
		return fmt.Errorf("count commits: %w", err)
	}
	if w.Commits == 0 && objs[2] != objs[5] {
		w.Base = strings.Join(movedNames, ", ") // the branch moved, to their commits only
	}
	for i, tip := range moved {
		if w.Commits == 0 || w.Unchanged {
			break
		}
		// Merged into it, the branch changes nothing: it holds that
		// branch's work only (a merge commit of it, say).
		if m, err := repo.MergeTree(tip, ref); err == nil && m.Clean() && m.Tree == trees[i] {
			w.Unchanged, w.Base = true, movedNames[i]
		}
	}
	return nil
}

// Empty reports whether the branch holds no work: no commits, or none
// that change anything.
func (w BranchWork) Empty() bool { return w.Gone || w.Commits == 0 || w.Unchanged }

// Problem is why the worktree's work is not the task's branch's, "" when
// HEAD is on the task's branch.
func (w BranchWork) Problem(path string) string {
	switch {
	case w.Gone:
		return fmt.Sprintf("its branch %s no longer exists", w.Branch)
	case w.Head == w.Branch:
		return ""
	case w.Head == "":
		return fmt.Sprintf("HEAD in %s is detached at %s, not on the task's branch %s: commits made there are not the task's work; "+
			"put them on %s and check it out there", path, short(w.HeadAt), w.Branch, w.Branch)
	}
	return fmt.Sprintf("HEAD in %s is on %s, not on the task's branch %s: commits made there are not the task's work; "+
		"put them on %s and check it out there", path, w.Head, w.Branch, w.Branch)
}

// EmptyWhy says why a branch with no work cannot go on.
func (w BranchWork) EmptyWhy() string {
	if w.Commits == 0 {
		if w.Base != "" {
			return fmt.Sprintf("its branch %s has no commits ahead of the task's start that %s does not hold (%s's commits merged in are not the task's work)", w.Branch, w.Base, w.Base)
		}
		return fmt.Sprintf("its branch %s has no commits ahead of the task's start", w.Branch)
	}
	if w.Base != "" {
		return fmt.Sprintf("its branch %s makes no change against the task's start and %s (%d commit(s), nothing %s lacks)", w.Branch, w.Base, w.Commits, w.Base)
	}
	return fmt.Sprintf("its branch %s makes no change against the task's start (%d commit(s), the same tree)", w.Branch, w.Commits)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
