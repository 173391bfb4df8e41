package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
)

// intoCheckEvery is how often the engine reads into to see that it still
// holds what landed (one git process).
const intoCheckEvery = 5 * time.Second

// checkInto pauses a run whose into lost landed work, ended runs too; a
// look at most every intoCheckEvery (NoteLost asks git only when into's
// ref changed since it last held everything). It returns the run as it
// is now.
func (e *Engine) checkInto(r *run.Run, now time.Time) (*run.Run, error) {
	if r.Into == "" || now.Sub(e.intoChecked[r.Name]) < intoCheckEvery {
		return r, nil
	}
	if e.intoChecked == nil {
		e.intoChecked = map[string]time.Time{}
	}
	e.intoChecked[r.Name] = now
	return e.Store.NoteLost(r, now)
}

// endedRun is a run the engine no longer drives that has work landed in
// into; held is its IntoHeld as last read.
type endedRun struct{ name, repo, into, held string }

// watchEnded reads into of each ended run at most every intoCheckEvery,
// and only when its ref changed on disk since it last held everything (a
// stat or two, no git process, while nothing moves): one that lost what
// landed is paused, its tasks need the user, and the engine drives it
// again.
func (e *Engine) watchEnded(now time.Time) {
	if e.intoChecked == nil {
		e.intoChecked = map[string]time.Time{}
	}
	for i := range e.ended {
		w := &e.ended[i]
		if now.Sub(e.intoChecked[w.name]) < intoCheckEvery {
			continue
		}
		if mark := run.RefMark(w.repo, w.into); mark != "" && mark == w.held {
			e.intoChecked[w.name] = now
			continue // nothing read, not even the run's file
		}
		r, err := e.Store.Load(w.name)
		if err != nil {
			continue // forgotten meanwhile: the next listing drops it
		}
		if r, err = e.checkInto(r, now); err != nil {
			e.logf(w.repo, "", "run %s: into: %v", w.name, err)
		}
		w.held = r.IntoHeld
	}
}
