package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
)

// A task is landed only while into holds what landed. When into is
// deleted, or moved so that it no longer contains a landed commit, those
// tasks need the user again and the run pauses, saying so: it is never
// made again from base behind the user's back, and nothing more lands or
// starts from it until the user has looked (owt run resume).

// intoCheckEvery is how often the engine reads into to see that it still
// holds what landed (one git process).
const intoCheckEvery = 5 * time.Second

// LostLandings names the landed tasks whose work into no longer holds,
// and why ("" and none when it holds them all).
func (r *Run) LostLandings() (why string, lost []string, err error) {
	var tips []string
	var ids []string
	for _, t := range r.Tasks {
		if t.State == Landed && t.LandedTip != "" {
			ids, tips = append(ids, t.ID), append(tips, t.LandedTip)
		}
	}
	if r.Into == "" || len(ids) == 0 || !isDir(r.Repo) {
		return "", nil, nil
	}
	repo := git.Repo{Root: r.Repo}
	if !repo.BranchExists(r.Into) {
		return fmt.Sprintf("%s no longer exists, so the work landed there is gone", r.Into), ids, nil
	}
	ref := "refs/heads/" + r.Into
	if ok, err := repo.Holds(ref, tips); err != nil || ok {
		return "", nil, err
	}
	for i, id := range ids {
		if !repo.IsAncestor(tips[i], ref) {
			lost = append(lost, id)
		}
	}
	return fmt.Sprintf("%s no longer contains the work that landed there (it was reset or rewritten)", r.Into), lost, nil
}

// checkInto pauses a run whose into lost landed work; a look at most
// every intoCheckEvery.
func (e *Engine) checkInto(r *Run, now time.Time) error {
	if r.Into == "" || r.State == Finished || now.Sub(e.intoChecked[r.Name]) < intoCheckEvery {
		return nil
	}
	if e.intoChecked == nil {
		e.intoChecked = map[string]time.Time{}
	}
	e.intoChecked[r.Name] = now
	why, lost, err := r.LostLandings()
	if err != nil || len(lost) == 0 {
		return err
	}
	return e.Store.Update(r.Name, func(cur *Run) ([]Event, error) {
		return cur.loseLandings(why, lost, now), nil
	})
}

// loseLandings makes the tasks lost no longer landed: each needs the
// user, and the run pauses with the reason. resume lands their work again
// (into made anew from base if it is gone).
func (r *Run) loseLandings(why string, lost []string, now time.Time) []Event {
	var evs []Event
	var ids []string
	for _, id := range lost {
		t, ok := r.Task(id)
		if !ok || t.State != Landed {
			continue
		}
		t.Why = why + "; owt run resume " + r.Name + " lands it again"
		t.Failure = &Failure{Class: FailLand, Error: why, At: now}
		r.setTask(t, NeedsYou, now)
		ids = append(ids, id)
		evs = append(evs, Event{At: now, Event: "needs_you", Task: id, Detail: t.Why})
	}
	if len(ids) == 0 {
		return nil
	}
	runWhy := fmt.Sprintf("%s: the work of %s is not in it; look at %s, then owt run resume %s lands it again",
		why, strings.Join(ids, ", "), r.Into, r.Name)
	switch {
	case r.State == Active:
		r.State, r.Why = Paused, runWhy
		evs = append(evs, Event{At: now, Event: "paused", Detail: r.Why})
	case r.Why == "":
		r.Why = runWhy // paused or stopped already: say why it waits
	}
	r.UpdatedAt = now
	return evs
}

// MarkLost shows the tasks lost (LostLandings) as what they are: not
// landed, needing the user.
func (v *View) MarkLost(why string, lost []string) {
	for i := range v.Tasks {
		t := &v.Tasks[i]
		for _, id := range lost {
			if t.ID == id && t.State == Landed {
				t.State, t.Why = NeedsYou, why
				v.Finished--
			}
		}
	}
	if len(lost) > 0 && v.Why == "" {
		v.Why = why
	}
}
