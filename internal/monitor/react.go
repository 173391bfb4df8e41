package monitor

import (
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/react"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// reactions runs the reaction sources (internal/react) for the agents of
// this server: built on the first tick, then called once a tick. Their
// work runs in the background; what they ask to tell the user is told
// here, on the monitor's own goroutine.
func (m *monitor) reactions(now time.Time) {
	if m.reactor == nil {
		m.reactor = &react.Reactor{Box: outbox.Default(), Log: m.lg.Infof, Notify: func(rec *state.Record, text string) {
			m.told.add(rec, notice{text: text, status: string(rec.Status), event: "reaction"})
		}}
	}
	for _, t := range m.told.drain() {
		cfg := config.Defaults().Notify
		if v := m.recs.repo(t.rec.Repo, m.logf); v.ws != nil {
			cfg = v.ws.Config.Notify
		}
		if t.status == runNoticeStatus && (!contains(cfg.On, runNoticeStatus) || m.saidByStatus(t.rec, t.notice, cfg)) {
			continue
		}
		m.notifier.notifyText(t.rec, cfg, m.paneTTY(t.rec), t.notice)
	}
	var in []react.Input
	for _, r := range m.recs.records {
		if _, ours := m.alive[recKey{r.Repo, r.Name}]; !ours && !m.followsPR(r) {
			continue
		}
		var cfg config.Config
		if v := m.recs.repo(r.Repo, m.logf); v.ws != nil {
			cfg = v.ws.Config
		} else {
			cfg = config.Defaults()
		}
		in = append(in, react.Input{Rec: r, Config: cfg, Into: m.intoOf(r), Tips: m.tipsOf(r, m.intoOf(r))})
	}
	m.reactor.Tick(now, in)
}

// saidByStatus reports whether a run's notice of a task whose agent waits
// at its own prompt is said already by that agent's status notice: this
// server watches the agent and [notify] on lists waiting.
func (m *monitor) saidByStatus(rec *state.Record, nt notice, cfg config.Notify) bool {
	_, ours := m.alive[recKey{rec.Repo, rec.Name}]
	return nt.agentWaiting && ours && contains(cfg.On, string(state.Waiting))
}

// followsPR reports whether this monitor follows the open pull request of
// a worktree no live agent works in (--no-agent, or its agent exited):
// the one of the server it was made on, so two monitors never poll it.
func (m *monitor) followsPR(r *state.Record) bool {
	return r.PR != nil && r.PR.State == "OPEN" && (r.NoAgent || r.Status == state.Exited) &&
		r.Socket != "" && r.Socket == m.socket
}

// intoOf is the into branch of the run r's agent works for, if any.
func (m *monitor) intoOf(r *state.Record) string {
	if m.engine == nil {
		return ""
	}
	return m.engine.IntoOf(r.Repo, r.Name)
}

// tellings are what the reactions asked to tell the user, until the next
// tick tells them.
type tellings struct {
	mu    sync.Mutex
	notes []telling
}

// telling is one notice for the next tick, and whose it is.
type telling struct {
	rec *state.Record
	notice
}

// runNoticeStatus is a run notice's OWT_STATUS, and the [notify] on
// value that lets it through.
const runNoticeStatus = "needs_you"

// addRun keeps a run engine's notice (a task that needs the user).
func (t *tellings) addRun(rec *state.Record, n run.Notice) {
	t.add(rec, notice{text: n.Text, status: runNoticeStatus, event: n.Event, run: n.Run, task: n.Task, agentWaiting: n.AgentWaiting})
}

// add keeps a notice until the next tick tells it.
func (t *tellings) add(rec *state.Record, nt notice) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, telling{rec: rec, notice: nt})
}

func (t *tellings) drain() []telling {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.notes
	t.notes = nil
	return out
}
