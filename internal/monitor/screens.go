package monitor

import (
	"crypto/sha256"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
)

// forceCapture is the longest a watched pane goes unread, output or not.
const forceCapture = 10 * time.Second

// sighting is a record's agent seen alive: when, and in which pane.
type sighting struct {
	at   time.Time
	pane string
}

// exitGrace is how long a record's session must be gone before the agent
// counts as exited: owt delete kills the session first and drops the
// record a moment later, and that is no exit to report.
const exitGrace = 2 * time.Second

// paneView is what the monitor knows of one agent pane's screen.
type paneView struct {
	hash       [32]byte
	changed    time.Time // last change of the text
	class      agent.Class
	reason     string // what a waiting screen waits for
	classSince time.Time
	captured   time.Time
	// marks are the ended-turn marks on the last working screen (or the
	// first one read); a screen that turns idle is compared with them. A
	// dialog's screen does not count: Gemini CLI draws its sign-in dialog
	// under the turn that failed behind it. A busy agent's screen changes
	// every tick: its text is kept (working) and read for marks only when
	// a screen turns idle.
	marks   agent.TurnMarks
	working string
	// idleMarks are the marks of the last idle screen read, at idleAt: the
	// screen before a turn that ran and ended between two looks (owt send
	// to a tool that answers in half a second), whose working screen owt
	// never saw.
	idleMarks agent.TurnMarks
	idleAt    time.Time
	// interrupted and turnError say how the turn ended that left the
	// current idle screen (agent.TurnEnd).
	interrupted bool
	turnError   string
	// reading is the classifier's evidence for class (owt why); mark the
	// row that says the turn was interrupted, when it was.
	reading agent.Reading
	mark    string
	// limit is a usage limit the screen shows (agent.LimitOf, LiveLimit).
	limit *state.Limit
	// blank: the pane shows nothing at all (Claude Code for seconds after
	// its API key question is answered).
	blank bool
}

// agentPane is a record with a live agent pane on this server.
type agentPane struct {
	rec  *state.Record
	pane tmux.PaneState
}

// agentPanes pairs the records whose screen owt reads with their panes in
// the last snapshot.
func (m *monitor) agentPanes() []agentPane {
	var out []agentPane
	for _, r := range m.recs.records {
		// Starting agents are read too: a first-run dialog (trust, login)
		// waits for the user before the tool is ever ready.
		if r.NoAgent || r.Status == state.Exited {
			continue
		}
		if p, ok := m.paneOf(r); ok && !p.Dead {
			out = append(out, agentPane{rec: r, pane: p})
		}
	}
	return out
}

// paneOf returns the agent pane of r in the last snapshot. The pane is
// found by its id, and it is r's when it is in r's session — by id, which
// survives rename-session, or by name — or has the terminal the monitor
// saw it with before (join-pane moves a pane to another session). The
// user may rename or rearrange sessions as they like: the agent lives as
// long as its pane does.
func (m *monitor) paneOf(r *state.Record) (tmux.PaneState, bool) {
	p, ok := m.byID[r.Pane]
	if !ok || r.Pane == "" {
		return tmux.PaneState{}, false
	}
	key := recKey{r.Repo, r.Name}
	// Ids are reused by a restarted server: trust them only on the server
	// the record was made on; otherwise the name must match too, and only
	// on the socket the record was made on (a session of that name on
	// another server is not the agent's).
	if m.sameServer(r) && r.SessionID != "" && p.SessionID == r.SessionID ||
		p.SessionName == r.Session && (r.Socket == "" || r.Socket == m.socket) ||
		p.TTY != "" && m.ttys[key] == p.TTY {
		m.ttys[key] = p.TTY
		return p, true
	}
	return tmux.PaneState{}, false
}

// toCapture lists the agent panes (as of the last tick) to read this tick:
// new ones; ones whose window had output since (or in the second of)
// their last capture, at most activePerTick of them; and ones unread for
// forceCapture, at most forcedPerTick. Where there are more, the longest
// unread go first, and the rest next tick.
func (m *monitor) toCapture(now time.Time) []string {
	var ids []string
	var active, stale []agentPane
	for _, ap := range m.live {
		v := m.screen[ap.pane.ID]
		switch {
		case v == nil:
			ids = append(ids, ap.pane.ID)
		case !ap.pane.Activity.Before(v.captured.Truncate(time.Second).Add(-time.Second)):
			active = append(active, ap)
		case now.Sub(v.captured) >= forceCapture:
			stale = append(stale, ap)
		}
	}
	for _, share := range []struct {
		panes []agentPane
		most  int
	}{{active, activePerTick(len(active))}, {stale, forcedPerTick(len(m.live))}} {
		sort.SliceStable(share.panes, func(i, j int) bool {
			return m.screen[share.panes[i].pane.ID].captured.Before(m.screen[share.panes[j].pane.ID].captured)
		})
		for _, ap := range share.panes[:min(len(share.panes), share.most)] {
			ids = append(ids, ap.pane.ID)
		}
	}
	return ids
}

// activePerTick is how many of n panes with output since their last
// read a tick reads: all up to 50, else half of them, so each is read at
// least every other tick. A hundred agents at work redraw their screens
// all the time; reading every one every second was most of the
// monitor's work (500 agents, a fifth busy: over its 2% of a core). What
// a working screen can say that no hook says (Esc, a dialog of a tool
// without hooks for it) waits a second more then; a screen that stops
// changing is read at the next tick.
func activePerTick(n int) int { return max(50, (n+1)/2) }

// forcedPerTick is how many panes unread for forceCapture a tick reads
// among n watched: 40, or a tenth of them when that is more (a second's
// share of forceCapture). With activePerTick's 50 that is one tmux call
// (about 115 captures) up to 750 agents. At 500 quiet agents a burst of
// 500 spreads over 10 ticks.
func forcedPerTick(n int) int { return max(40, (n+9)/10) }

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
		var reading agent.Reading
		if cl := m.recs.repo(ap.rec.Repo, m.logf).classifiers[ap.rec.Tool]; cl != nil {
			reading = cl.Explain(text)
			if reading.Class == agent.ClassWorking && agent.Booting(text) {
				reading = agent.Reading{} // busy booting itself: no word on a turn
			}
		}
		class := reading.Class
		v.reason, v.reading = reading.Reason, reading
		v.blank = strings.TrimSpace(text) == ""
		if v.classSince.IsZero() {
			// What was on screen before owt looked is history — but for the
			// turn the record says just ended, or is still running: its
			// failure mark (an error, a usage limit), the lowest one, is
			// this turn's, whether or not owt saw the turn run.
			v.marks = agent.Marks(text)
			if turnJustEnded(ap.rec, now) && v.marks.Failures > 0 {
				v.marks.Failures--
			}
		}
		if class != v.class || v.classSince.IsZero() {
			v.class, v.classSince = class, now
		}
		v.interrupted, v.turnError, v.mark, v.limit = false, "", "", nil
		switch class {
		case agent.ClassIdle:
			if v.working != "" {
				v.marks, v.working = agent.Marks(v.working), ""
			} else if !v.idleAt.IsZero() && ap.rec.Status == state.Working && ap.rec.StatusSince.After(v.idleAt) {
				// A turn began since the last idle screen (owt send, a
				// hook) and owt never saw it run: that screen is its
				// before, not the turn before it, whose marks are still
				// on screen.
				v.marks = v.idleMarks
			}
			// Read again on every change: the mark may be drawn a moment
			// after the prompt.
			after := agent.Marks(text)
			v.interrupted, v.turnError = agent.TurnEnd(v.marks, after)
			v.idleMarks, v.idleAt = after, now
			if v.interrupted {
				v.mark = agent.InterruptRow(text)
			}
			if l, ok := agent.LimitOf(v.turnError, now); ok {
				v.turnError, v.limit = "", &l // a usage limit ended the turn: no failure, limited
			}
		case agent.ClassWorking:
			v.working = text
		}
		if class == agent.ClassWaiting || class == agent.ClassWorking {
			if l, ok := agent.LiveLimit(text, now); ok {
				v.limit = &l
			}
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
		obs := status.Observation{Class: v.class, Reason: v.reason, ClassSince: v.classSince, Changed: v.changed, At: now,
			Interrupted: v.interrupted, TurnError: v.turnError, Limit: v.limit,
			Rule: v.reading.Rule, RuleText: v.reading.RuleText, Lines: v.reading.Lines, Mark: v.mark, Blank: v.blank,
			HookEndsTurns: repo.ws.Tools[ap.rec.Tool].Hooks != ""}
		if _, ok := status.Reconcile(ap.rec, obs, still); !ok {
			if status.Confirms(ap.rec, obs) {
				if _, err := status.ConfirmScreen(&repo.ws.Ledger, ap.rec.Name, obs); err != nil {
					m.note(ap.rec, "error", "%s: %v", ap.rec.Name, err)
				}
			}
			continue
		}
		changed, err := status.ApplyScreen(&repo.ws.Ledger, ap.rec.Name, obs, still)
		if err != nil {
			m.note(ap.rec, "error", "%s: %v", ap.rec.Name, err)
		} else if changed {
			m.note(ap.rec, "status", "%s: %s on screen (was %s from %s; rule %s)", ap.rec.Name, v.class, ap.rec.Status, ap.rec.Source, v.reading.Rule)
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
		due(v.classSince.Add(status.Debounce))
		due(ap.rec.EventAt.Add(status.Debounce))
		due(v.changed.Add(m.recs.repo(ap.rec.Repo, m.logf).ws.Config.Status.StillAfter.Duration))
	}
	return next
}

// diedGrace is how long an agent's dead pane waits for the runner tmux
// starts in it before the monitor records the exit itself.
const diedGrace = 3 * time.Second

// exits marks as exited the agents whose pane died or whose session this
// server had and lost (a killed session takes "owt _run" with it, so no
// one else records the exit).
//
// On its first look at the server it also marks as exited the records
// made on this server (their Socket) whose pane and session it does not
// have: agents of a server that was restarted, or of a machine that was,
// which no one else would ever call gone.
func (m *monitor) exits(now time.Time) {
	sessions := map[string]bool{}
	for _, p := range m.panes {
		sessions[p.SessionName] = true
		sessions[p.SessionID] = true
	}
	first := !m.looked
	m.looked = true
	dead := map[string]time.Time{}
	for _, p := range m.panes {
		if p.Dead {
			dead[p.ID] = now
			if at, ok := m.dead[p.ID]; ok {
				dead[p.ID] = at
			}
		}
	}
	m.dead = dead
	for _, r := range m.recs.records {
		if r.NoAgent {
			continue
		}
		if r.Status == state.Exited {
			m.exitCodeOf(r, dead, now)
			continue
		}
		key := recKey{r.Repo, r.Name}
		p, ok := m.paneOf(r)
		switch {
		case ok && p.Dead:
			// An agent's pane is kept when it exits, for the runner tmux
			// starts in it then to record the exit (pane.Died) at once,
			// with its signal: the monitor steps in only when that did
			// not happen. A pane dead with no status is one whose
			// process's exit tmux missed (its terminal closed, its
			// process not reaped): tmux is asked to look again.
			if p.DeadStatus < 0 && now.Sub(dead[p.ID]) >= time.Second {
				m.nudge(r, key, dead[p.ID])
			}
			if now.Sub(dead[p.ID]) >= diedGrace {
				code := &p.DeadStatus
				if p.DeadStatus < 0 {
					code = nil // a signal tmux before 3.3 did not name
				}
				m.setExited(r, code, now)
			}
		case ok:
			m.alive[key] = sighting{at: now, pane: r.Pane}
			if m.sameServer(r) && r.SessionID != "" && p.SessionID == r.SessionID && p.SessionName != r.Session {
				m.renamed(r, p.SessionName)
			}
		case r.Pane == "" && sessions[r.Session]:
			m.alive[key] = sighting{at: now} // a record being created has its session before its pane
		default:
			seen, ours := m.alive[key]
			if ours && seen.pane != "" && seen.pane != r.Pane {
				// A pane other than the one seen alive is a new life of
				// the agent (owt attach or restore started it again after
				// it exited), which this look may predate: the old life's
				// sighting says nothing of it. The grace starts again for
				// the new pane: seen by then, it lives; not, it is gone.
				m.alive[key] = sighting{at: now, pane: r.Pane}
				continue
			}
			// On its first look, a monitor calls gone the agents of its
			// socket whose session is missing — or that were made on an
			// earlier run of the server, whose panes died with it.
			restarted := r.Server != "" && m.server != "" && r.Server != m.server
			missing := !sessions[r.Session] && (r.SessionID == "" || !m.sameServer(r) || !sessions[r.SessionID])
			stale := first && r.Pane != "" && r.Socket != "" && r.Socket == m.socket && (restarted || missing)
			if !stale && (!ours || now.Sub(seen.at) < exitGrace) {
				continue
			}
			if _, err := os.Stat(r.Path); err != nil {
				continue // being deleted
			}
			m.setExited(r, nil, now)
		}
	}
}

// exitCodeOf completes a record its agent's hook called exited, with no
// code yet, once tmux has not handed its pane on (pane.Died) diedGrace
// later: a dead pane's code is recorded; a pane whose process's exit tmux
// missed (not dead, or dead with no status: tmux 3.3a, seen in a new
// server's first seconds and with agents ending together) gets tmux to
// look again (nudge), once per exit event.
func (m *monitor) exitCodeOf(r *state.Record, dead map[string]time.Time, now time.Time) {
	if r.ExitCode != nil || now.Sub(r.EventAt) < diedGrace || !m.sameServer(r) {
		return
	}
	p, ok := m.paneOf(r)
	switch {
	case !ok:
	case p.Dead && p.DeadStatus >= 0:
		if now.Sub(dead[p.ID]) >= diedGrace {
			code := p.DeadStatus
			m.setExited(r, &code, now)
		}
	default:
		m.nudge(r, recKey{r.Repo, r.Name}, r.EventAt)
	}
}

// nudge has tmux look for its children's exits again (run-shell: its
// job's exit makes tmux reap every child that ended, and so see a pane's
// process it missed), once per event at.
func (m *monitor) nudge(r *state.Record, key recKey, at time.Time) {
	if m.nudged[key].Equal(at) {
		return
	}
	if m.nudged == nil {
		m.nudged = map[recKey]time.Time{}
	}
	m.nudged[key] = at
	if _, err := m.tm.Run("run-shell", "true"); err != nil {
		m.note(r, "error", "%s: ask tmux to look for its exit: %v", r.Name, err)
		return
	}
	m.note(r, "nudge", "%s: tmux had not seen its process end; asked it to look again", r.Name)
}

// renamed follows a rename-session of r's session (same id, new name), so
// owt finds, publishes to and switches to the session by its new name.
func (m *monitor) renamed(r *state.Record, session string) {
	ws := m.recs.repo(r.Repo, m.logf).ws
	if err := ws.FollowSession(r.Name, r.SessionID, session); err != nil {
		m.note(r, "error", "%s: %v", r.Name, err)
		return
	}
	m.note(r, "session", "%s: its session is now called %s", r.Name, session)
}

func (m *monitor) setExited(r *state.Record, code *int, now time.Time) {
	ws := m.recs.repo(r.Repo, m.logf).ws
	if _, changed, err := status.SetAt(&ws.Ledger, r.Name, state.Exited, state.FromOwt, code, now); err != nil {
		m.note(r, "error", "%s: %v", r.Name, err)
	} else if changed {
		m.note(r, "exited", "%s: exited (its pane or session is gone)", r.Name)
	}
}

// sameServer reports whether r was made on the server run this monitor
// watches, so its recorded session and pane ids are still its own.
func (m *monitor) sameServer(r *state.Record) bool {
	return r.Server != "" && r.Server == m.server
}

// turnJustEnded reports whether rec's last turn is the one on screen now:
// the record says it is still starting or working, or it turned idle
// moments ago (a hook at the turn's end, before the monitor's first look).
func turnJustEnded(rec *state.Record, now time.Time) bool {
	switch rec.Status {
	case state.Starting, state.Working:
		return true
	case state.Idle:
		return now.Sub(rec.EventAt) < 15*time.Second
	}
	return false
}
