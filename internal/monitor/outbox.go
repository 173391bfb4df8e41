package monitor

import (
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/send"
)

// deliver hands the outbox's queued messages to this server's idle agents
// that no user looks at (internal/outbox). With nothing queued it costs
// one stat of the outbox dir.
func (m *monitor) deliver(now time.Time) {
	if m.courier == nil {
		m.courier = &send.Courier{Box: outbox.Default(), Socket: m.socket, Tmux: m.tm, Log: m.lg.Infof, Viewed: m.paneViewed}
	}
	m.courier.Tick(now)
}
