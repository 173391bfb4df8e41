package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// A task is landed only while into holds what landed. When into is
// deleted, or moved so that it no longer contains a landed commit, those
// tasks need the user again and the run pauses, saying so: it is never
// made again from base behind the user's back, and nothing more lands or
// starts from it until the user has looked (owt run resume).

// LostLandings names the landed tasks whose work into no longer holds,
// and why ("" and none when it holds them all). Into holds a task's work
// when it contains the landed tip, or when its content does (into rebased,
// the work cherry-picked or squashed there): merging the tip into into
// then changes nothing. One git process when into holds every tip.
func (r *Run) LostLandings() (why string, lost []string, err error) {
	ids, tips := r.landedTips()
	if r.Into == "" || len(ids) == 0 || !IsDir(r.Repo) {
		return "", nil, nil
	}
	repo := git.Repo{Root: r.Repo}
	ref := "refs/heads/" + r.Into
	ok, err := repo.Holds(ref, tips)
	if ok {
		return "", nil, nil
	}
	if !repo.BranchExists(r.Into) {
		return fmt.Sprintf("%s no longer exists, so the work landed there is gone", r.Into), ids, nil
	}
	if err != nil {
		return "", nil, err
	}
	intoTree, err := repo.TreeOf(ref)
	if err != nil {
		return "", nil, err
	}
	for i, id := range ids {
		if !holdsContent(repo, ref, intoTree, tips[i]) {
			lost = append(lost, id)
		}
	}
	if len(lost) == 0 {
		return "", nil, nil
	}
	return fmt.Sprintf("%s no longer contains the work that landed there (it was reset or rewritten)", r.Into), lost, nil
}

// holdsContent reports whether into (its tree intoTree) holds tip's work:
// tip is in its history, or each of tip's commits since their fork point
// is there by patch-id (into was rebased, and may have moved on since),
// or merging tip into it changes nothing (squashed).
func holdsContent(repo git.Repo, into, intoTree, tip string) bool {
	if repo.IsAncestor(tip, into) {
		return true
	}
	if ok, err := repo.HoldsPatches(into, tip); err == nil && ok {
		return true
	}
	m, err := repo.MergeTree(into, tip)
	return err == nil && m.Clean() && m.Tree == intoTree
}

// landedTips are the landed tasks whose tip is known, and those tips.
func (r *Run) landedTips() (ids, tips []string) {
	for _, t := range r.Tasks {
		if t.State == Landed && t.LandedTip != "" {
			ids, tips = append(ids, t.ID), append(tips, t.LandedTip)
		}
	}
	return ids, tips
}

// NoteLost records what LostLandings finds in the run called name: its
// lost tasks need the user and the run waits for owt run resume, so every
// view and command reads the same truth whether or not a monitor looked.
// Git is asked only when into's ref moved since it last held everything
// (Run.IntoHeld, noted here): else it costs a stat or two. It returns the
// run as it is now.
func (s Store) NoteLost(r *Run, now time.Time) (*Run, error) {
	if ids, _ := r.landedTips(); r.Into == "" || len(ids) == 0 {
		return r, nil // nothing landed: nothing to lose
	}
	mark := RefMark(r.Repo, r.Into)
	if mark != "" && mark == r.IntoHeld {
		return r, nil // as it was when it held everything: no git process
	}
	why, lost, err := r.LostLandings()
	if err != nil {
		return r, err
	}
	if len(lost) == 0 {
		if mark == "" || s.noteHeld(r.Name, mark) != nil {
			return r, nil // not noted: the next look asks git again
		}
		held := *r
		held.IntoHeld = mark
		return &held, nil
	}
	if err := s.Update(r.Name, func(cur *Run) ([]Event, error) {
		return cur.loseLandings(why, lost, now), nil
	}); err != nil {
		return r, err
	}
	return s.Load(r.Name)
}

// noteHeld records mark as how the run's into looked when it held every
// landing. It is no change the run's log tells, so it leaves UpdatedAt.
func (s Store) noteHeld(name, mark string) error {
	if !s.Exists(name) {
		return fmt.Errorf("%w %q", ErrNoSuchRun, name)
	}
	return s.withLock(name, func() error {
		cur, err := s.Load(name)
		if err != nil || cur.IntoHeld == mark {
			return err
		}
		cur.IntoHeld = mark
		return s.write(cur)
	})
}

// RefMark tells how branch's ref is stored in the repository at root
// (its loose ref file and packed-refs, by inode, size and time): when it is
// unchanged, the branch did not move. "" when that cannot be told (the
// repository's .git is not a directory): then into is read each time.
func RefMark(root, branch string) string {
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return ""
	}
	mark := ""
	for _, p := range []string{filepath.Join(gitDir, "refs", "heads", filepath.FromSlash(branch)), filepath.Join(gitDir, "packed-refs")} {
		if fi, err := os.Stat(p); err == nil {
			ino := uint64(0)
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				ino = st.Ino // git writes a ref anew (lock file, rename): a new inode
			}
			mark += fmt.Sprintf("%d:%d:%d;", ino, fi.Size(), fi.ModTime().UnixNano())
		} else {
			mark += "-;"
		}
	}
	return mark
}

// loseLandings makes the tasks lost no longer landed: each needs the
// user, and the run (a finished one too) pauses with the reason. resume,
// or retry of the task, lands their work again (into made anew from base
// if it is gone).
func (r *Run) loseLandings(why string, lost []string, now time.Time) []Event {
	var evs []Event
	var ids []string
	for _, id := range lost {
		t, ok := r.Task(id)
		if !ok || t.State != Landed {
			continue
		}
		t.Why = why + "; owt run resume " + r.Name + " lands it again"
		t.Failure = &Failure{Class: FailLand, Error: untrusted.From(why), At: now}
		r.SetTask(t, NeedsYou, now)
		ids = append(ids, id)
		evs = append(evs, Event{At: now, Event: "needs_you", Task: id, Detail: t.Why})
	}
	if len(ids) == 0 {
		return nil
	}
	runWhy := fmt.Sprintf("%s: the work of %s is not in it; look at %s, then%s",
		why, strings.Join(ids, ", "), r.Into, r.relandSaid())
	switch {
	case r.State == Active || r.State == Finished:
		r.State, r.Why = Paused, runWhy
		evs = append(evs, Event{At: now, Event: "paused", Detail: r.Why})
	case r.Why == "":
		r.Why = runWhy // paused or stopped already: say why it waits
	}
	r.UpdatedAt = now
	return evs
}

// relandSaid ends the why of a run paused because into lost what landed.
func (r *Run) relandSaid() string { return " owt run resume " + r.Name + " lands it again" }

// lostLanding reports whether the task landed once and into lost it
// (loseLandings): its work was judged done, only the landing is owed.
func (t *TaskRun) lostLanding() bool {
	return t.State == NeedsYou && t.LandedTip != "" && t.Failure != nil && t.Failure.Class == FailLand
}

// relandLost is owt run retry of a task whose landing into lost: it is
// done again and lands at once; a run paused only for such losses goes on.
func (r *Run) relandLost(t *TaskRun, now time.Time) []Event {
	t.Failure, t.Why = nil, ""
	r.SetTask(t, Done, now)
	evs := []Event{{At: now, Event: "retry", Task: t.ID, Detail: "lands again in " + r.Into}}
	switch {
	case r.State == Paused && strings.HasSuffix(r.Why, r.relandSaid()):
		r.State, r.Why = Active, ""
		evs = append(evs, Event{At: now, Event: "resumed", Detail: "paused → active: " + t.ID + " lands again"})
	case r.State != Active:
		evs[0].Detail += " once the run is resumed (it is " + string(r.State) + ")"
	}
	r.UpdatedAt = now
	return evs
}
