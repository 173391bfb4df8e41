package engine

import (
	"errors"
	"os"
	"time"

	"github.com/owt-tmux/owt/internal/run"
)

// A run file can change in place (a user repairing it with an editor or
// cat >): the runs dir's mtime stays, so the engine also compares each
// live run file's mtime and size with those of the last listing, one stat
// per live run a tick.

// fileSig is what a stat says of a run file: it changed when this did.
type fileSig struct {
	mod  time.Time
	size int64
}

// liveFilesChanged reports whether a live run's file changed since the
// last listing (or was never looked at).
func (e *Engine) liveFilesChanged() bool {
	for _, name := range e.live {
		if sig, ok := e.sigs[name]; !ok || sig != e.sigOf(name) {
			return true
		}
	}
	return false
}

// noteFiles remembers the files of the live runs as they are now.
func (e *Engine) noteFiles(names []string) {
	e.sigs = map[string]fileSig{}
	for _, name := range names {
		e.sigs[name] = e.sigOf(name)
	}
}

func (e *Engine) sigOf(name string) fileSig {
	fi, err := os.Stat(e.Store.Path(name))
	if err != nil {
		return fileSig{} // gone: a listing says what became of it
	}
	return fileSig{mod: fi.ModTime(), size: fi.Size()}
}

// keepUnreadable splits the runs a listing could not read: those that
// were live (this engine's: they stay live, step says their problem once
// under their own name, the bar shows them) and the others (said once as
// the listing's problem).
func (e *Engine) keepUnreadable(err error) (ours []string, others error) {
	var broken run.BrokenRuns
	if !errors.As(err, &broken) {
		return nil, err
	}
	live := map[string]bool{}
	for _, name := range e.live {
		live[name] = true
	}
	var rest run.BrokenRuns
	for _, b := range broken {
		var br *run.BrokenRun
		if errors.As(b, &br) && live[br.Name] {
			ours = append(ours, br.Name)
			continue
		}
		rest = append(rest, b)
	}
	if len(rest) == 0 {
		return ours, nil
	}
	return ours, rest
}
