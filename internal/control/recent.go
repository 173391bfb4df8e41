package control

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// The recent log holds what owt's own verbs did outside runs (shipped,
// merged, deleted), so RECENT shows it whichever screen or command did it.
// It is a short JSON-lines file, appended to and cut back now and then.
const (
	recentFile = "recent.jsonl"
	recentKeep = 200 // lines kept when the file is cut back
	recentCut  = 64 << 10
)

func recentPath() string { return filepath.Join(state.Dir(), recentFile) }

// Note records an event for RECENT. It is a log for people, so a failure
// to write it is not the verb's failure.
func Note(ev Event) {
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return
	}
	if os.MkdirAll(state.Dir(), 0o700) != nil {
		return
	}
	f, err := os.OpenFile(recentPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	info, err := f.Stat()
	_ = f.Close()
	if err == nil && info.Size() > recentCut {
		cutRecent()
	}
}

// cutRecent keeps the last recentKeep lines.
func cutRecent() {
	evs := readRecent(recentKeep)
	var b strings.Builder
	for _, ev := range evs {
		line, _ := json.Marshal(ev)
		b.Write(line)
		b.WriteByte('\n')
	}
	_ = atomicfile.Write(recentPath(), []byte(b.String()))
}

// readRecent returns the last n events of the recent log, oldest first.
func readRecent(n int) []Event {
	f, err := os.Open(recentPath())
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			out = append(out, ev)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// runEventShown are the run events RECENT shows; the rest (clock holds,
// state steps) are bookkeeping.
var runEventShown = map[string]bool{
	"landed": true, "failed": true, "retry": true, "backoff": true, "needs_you": true,
	"done": true, "delivered": true, "undeliverable": true, "blocked": true, "finished": true,
	"registered": true, "paused": true, "resumed": true, "stopped": true, "skipped": true,
	"cancelled": true, "started": true, "recovered": true, "reopened": true, "checks": true,
}

// runEvents are the last events of each run worth showing.
func runEvents(store run.Store, runs []*run.Run, n int) []Event {
	var out []Event
	for _, r := range runs {
		evs, _ := store.Events(r.Name)
		var kept []Event
		for _, ev := range evs {
			if runEventShown[ev.Event] {
				kept = append(kept, Event{At: ev.At, Repo: r.Repo, Run: r.Name, Name: ev.Task, Event: ev.Event, Detail: ev.Detail})
			}
		}
		if len(kept) > n {
			kept = kept[len(kept)-n:]
		}
		out = append(out, kept...)
	}
	return out
}
