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
		m.reactor = &react.Reactor{Box: outbox.Default(), Logf: m.logf, Notify: m.told.add}
	}
	for _, n := range m.told.drain() {
		cfg := config.Defaults().Notify
		if v := m.recs.repo(n.rec.Repo, m.logf); v.ws != nil {
			cfg = v.ws.Config.Notify
		}
		nt := notice{text: n.text, status: string(n.rec.Status), event: "reaction"}
		if n.run != nil {
			if !contains(cfg.On, runNoticeStatus) || m.saidByStatus(n.rec, n.run, cfg) {
				continue
			}
			nt = notice{text: n.text, status: runNoticeStatus, event: n.run.Event, run: n.run.Run, task: n.run.Task}
		}
		m.notifier.notifyText(n.rec, cfg, m.paneTTY(n.rec), nt)
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
		in = append(in, react.Input{Rec: r, Config: cfg, Into: m.intoOf(r)})
	}
	m.reactor.Tick(now, in)
}

// saidByStatus reports whether a run's notice of a task whose agent waits
// at its own prompt is said already by that agent's status notice: this
// server watches the agent and [notify] on lists waiting.
func (m *monitor) saidByStatus(rec *state.Record, n *run.Notice, cfg config.Notify) bool {
	_, ours := m.alive[recKey{rec.Repo, rec.Name}]
	return n.AgentWaiting && ours && contains(cfg.On, string(state.Waiting))
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

type telling struct {
	rec  *state.Record
	text string
	run  *run.Notice // a run's task that needs the user; nil for a reaction's
}

// runNoticeStatus is a run notice's OWT_STATUS, and the [notify] on
// value that lets it through.
const runNoticeStatus = "needs_you"

// addRun keeps a run engine's notice.
func (t *tellings) addRun(rec *state.Record, n run.Notice) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, telling{rec: rec, text: n.Text, run: &n})
}

func (t *tellings) add(rec *state.Record, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, telling{rec: rec, text: text})
}

func (t *tellings) drain() []telling {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.notes
	t.notes = nil
	return out
}
