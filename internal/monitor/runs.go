package monitor

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
)

// runs is the task-graph engine of this server (internal/run): built on
// the first tick, then called once a tick. With no run in flight it costs
// one stat of the runs dir.
func (m *monitor) runs(now time.Time) {
	if m.engine == nil {
		m.engine = &run.Engine{Store: run.DefaultStore(), Socket: m.socket, Tmux: m.tm, Logf: m.logf}
	}
	m.engine.Tick(now)
}
