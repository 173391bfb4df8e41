package notify

import (
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Names are the channels owt has, in the order owt notify test tries
// them.
var Names = []string{"terminal", "desktop", "command", "webhook", "ntfy"}

// Deps is what channels need from the caller.
type Deps struct {
	// Tmux is the server whose clients the terminal channel writes to
	// and a click on a desktop notice switches.
	Tmux *tmux.Client
	// HTTP makes the network channels' requests; nil is owt-mcp's
	// (httpcall.Sibling), so owt itself links no net/http.
	HTTP httpcall.Doer
	// Tickets keeps what a ntfy notice's buttons may answer; nil puts no
	// buttons on a notice (owt notify test, or no monitor to answer).
	Tickets *ntfy.Tickets
}

func (d Deps) http() httpcall.Doer {
	if d.HTTP == nil {
		return httpcall.Sibling{}
	}
	return d.HTTP
}

// builders make each channel's route from the config; ok is false when
// the channel is off. A channel of another file adds itself here (in an
// init) so owt notify test and the monitor both know it.
var builders = map[string]func(cfg config.Notify, deps Deps) (Route, bool){
	"desktop": desktopRoute,
	"command": commandRoute,
}

// register adds a channel's builder; for the init of its file.
func register(name string, build func(cfg config.Notify, deps Deps) (Route, bool)) {
	builders[name] = build
}

// Configured is the route of every channel cfg turns on, in Names order.
func Configured(cfg config.Notify, deps Deps) []Route {
	var rs []Route
	for _, name := range Names {
		if build := builders[name]; build != nil {
			if r, ok := build(cfg, deps); ok {
				rs = append(rs, r)
			}
		}
	}
	return rs
}

// Wanted reports whether any route, or [notify] on (the tmux message and
// the bell), takes a notice of status: the monitor's first filter.
func Wanted(cfg config.Notify, routes []Route, status string) bool {
	for _, s := range cfg.On {
		if s == status {
			return true
		}
	}
	for _, r := range routes {
		if r.Takes(status) {
			return true
		}
	}
	return false
}

// on is a channel's own filter, or [notify] on when it sets none.
func on(own []string, cfg config.Notify) []string {
	if own != nil {
		return own
	}
	return cfg.On
}
