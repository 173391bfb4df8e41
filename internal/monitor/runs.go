package monitor

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/run/engine"
)

// runs is the task-graph engine of this server (internal/run/engine): built on
// the first tick, then called once a tick. With no run in flight it costs
// one stat of the runs dir.
func (m *monitor) runs(now time.Time) {
	if m.engine == nil {
		m.engine = &engine.Engine{Store: run.DefaultStore(), Socket: m.socket, Server: m.server, Tmux: m.tm, Log: m.lg.Infof,
			PaneActivity: m.paneActivity, UserOnPane: m.paneViewed, Notify: m.told.addRun}
	}
	m.engine.Tick(now)
}

// paneActivity is when pane last showed output, as this tick's snapshot
// saw it (zero when unknown).
func (m *monitor) paneActivity(pane string) time.Time {
	return m.byID[pane].Activity
}

// paneViewed reports whether a client is on pane, as this tick's snapshot
// saw it: the agent's clock stops then.
func (m *monitor) paneViewed(pane string) bool {
	return m.byID[pane].Viewed
}
