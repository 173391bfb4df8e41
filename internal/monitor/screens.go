package monitor

import (
	"crypto/sha256"
	"os"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// forceCapture is the longest a watched pane goes unread, output or not.
const forceCapture = 10 * time.Second

// exitGrace is how long a record's session must be gone before the agent
// counts as exited: owt delete kills the session first and drops the
// record a moment later, and that is no exit to report.
const exitGrace = 2 * time.Second

// paneView is what the monitor knows of one agent pane's screen.
type paneView struct {
	hash       [32]byte
	changed    time.Time // last change of the text
	class      agent.Class
	classSince time.Time
	captured   time.Time
}

// agentPane is a record with a live agent pane on this server.
type agentPane struct {
	rec  *state.Record
	pane tmux.PaneState
}

// agentPanes pairs the records whose screen owt reads with their panes in
// the last snapshot.
func (m *monitor) agentPanes() []agentPane {
	byID := make(map[string]tmux.PaneState, len(m.panes))
	for _, p := range m.panes {
		byID[p.ID] = p
	}
	var out []agentPane
	for _, r := range m.recs.records {
		if r.NoAgent || r.Status == state.Starting || r.Status == state.Exited {
			continue
		}
		if p, ok := byID[r.Pane]; ok && !p.Dead && p.SessionName == r.Session {
			out = append(out, agentPane{rec: r, pane: p})
		}
	}
	return out
}

// toCapture lists the agent panes (as of the last tick) to read this tick:
// new ones, ones whose window had output since (or in the second of) their
// last capture, and ones unread for forceCapture.
func (m *monitor) toCapture(now time.Time) []string {
	var ids []string
	for _, ap := range m.live {
		v := m.screen[ap.pane.ID]
		if v == nil || !ap.pane.Activity.Before(v.captured.Truncate(time.Second).Add(-time.Second)) ||
			now.Sub(v.captured) >= forceCapture {
			ids = append(ids, ap.pane.ID)
		}
	}
	return ids
}

// observe classifies the captured screens and forgets panes that are gone.
func (m *monitor) observe(panes []tmux.PaneState, captures map[string]string, now time.Time) {
	live := map[string]bool{}
	for _, p := range panes {
		live[p.ID] = true
	}
	for id := range m.screen {
		if !live[id] {
			delete(m.screen, id)
		}
	}
	for _, ap := range m.live {
		text, ok := captures[ap.pane.ID]
		if !ok {
			continue
		}
		v := m.screen[ap.pane.ID]
		if v == nil {
			v = &paneView{changed: now}
			m.screen[ap.pane.ID] = v
		}
		h := sha256.Sum256([]byte(text))
		v.captured = now
		if h == v.hash && !v.classSince.IsZero() {
			continue // same text, same reading
		}
		v.hash, v.changed = h, now
		class := agent.ClassUnknown
		if cl := m.recs.repo(ap.rec.Repo, m.logf).classifiers[ap.rec.Tool]; cl != nil {
			class = cl.Classify(text)
		}
		if class != v.class || v.classSince.IsZero() {
			v.class, v.classSince = class, now
		}
	}
}

// reconcile lets each read screen correct its record.
func (m *monitor) reconcile(now time.Time) {
	for _, ap := range m.live {
		v := m.screen[ap.pane.ID]
		if v == nil {
			continue
		}
		repo := m.recs.repo(ap.rec.Repo, m.logf)
		still := repo.ws.Config.Status.StillAfter.Duration
		obs := workspace.Observation{Class: v.class, ClassSince: v.classSince, Changed: v.changed, At: now}
		if _, ok := workspace.Reconcile(ap.rec, obs, still); !ok {
			continue
		}
		changed, err := repo.ws.ApplyScreen(ap.rec.Name, obs, still)
		if err != nil {
			m.logf("%s: %v", ap.rec.Name, err)
		} else if changed {
			m.logf("%s: %s on screen (was %s from %s)", ap.rec.Name, v.class, ap.rec.Status, ap.rec.Source)
		}
	}
}

// nextTick is when the next look is due: after interval at the latest,
// sooner when a decision falls due (a reading held for the debounce, a
// fresh event aged past it, a pane still for still_after).
func (m *monitor) nextTick(now time.Time, interval time.Duration) time.Time {
	next := now.Add(interval)
	due := func(t time.Time) {
		if t.After(now) && t.Before(next) {
			next = t.Add(10 * time.Millisecond)
		}
	}
	for _, ap := range m.live {
		v := m.screen[ap.pane.ID]
		if v == nil || v.class == agent.ClassUnknown || string(v.class) == string(ap.rec.Status) {
			continue
		}
		due(v.classSince.Add(workspace.Debounce))
		due(ap.rec.EventAt.Add(workspace.Debounce))
		due(v.changed.Add(m.recs.repo(ap.rec.Repo, m.logf).ws.Config.Status.StillAfter.Duration))
	}
	return next
}

// exits marks as exited the agents whose pane died or whose session this
// server had and lost (a killed session takes "owt _run" with it, so no
// one else records the exit).
func (m *monitor) exits(now time.Time) {
	panes := make(map[string]tmux.PaneState, len(m.panes))
	sessions := map[string]bool{}
	for _, p := range m.panes {
		panes[p.ID] = p
		sessions[p.SessionName] = true
	}
	for _, r := range m.recs.records {
		if r.NoAgent || r.Status == state.Exited {
			continue
		}
		key := recKey{r.Repo, r.Name}
		p, ok := panes[r.Pane]
		switch {
		case ok && p.SessionName == r.Session && p.Dead:
			code := p.DeadStatus
			m.setExited(r, &code, now)
		case ok && p.SessionName == r.Session, r.Pane == "" && sessions[r.Session]:
			m.alive[key] = now // a record being created has its session before its pane
		default:
			seen, ours := m.alive[key]
			if !ours || now.Sub(seen) < exitGrace {
				continue
			}
			if _, err := os.Stat(r.Path); err != nil {
				continue // being deleted
			}
			m.setExited(r, nil, now)
		}
	}
}

func (m *monitor) setExited(r *state.Record, code *int, now time.Time) {
	ws := m.recs.repo(r.Repo, m.logf).ws
	if _, changed, err := ws.SetStatusAt(r.Name, state.Exited, state.FromOwt, code, now); err != nil {
		m.logf("%s: %v", r.Name, err)
	} else if changed {
		m.logf("%s: exited (its pane or session is gone)", r.Name)
	}
}
