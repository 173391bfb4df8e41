package engine

import (
	"context"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
)

// barTimeout bounds the one tmux call that sets the option.
const barTimeout = 2 * time.Second

// publishBar sets the bar's runs option from runs (this server's and
// others', as listed) when its text changed: a tmux call only then. The
// first call always sets it, so a text left by an earlier monitor goes.
func (e *Engine) publishBar(runs []*run.Run, unreadable []string) {
	if e.Tmux == nil {
		return
	}
	text := run.BarText(runs, e.Socket)
	for _, name := range unreadable {
		// Its file cannot be read: nothing of it is known but that the
		// user must look ('owt run list' says where).
		text = strings.TrimSpace(text + " ✗" + strings.ReplaceAll(name, "#", "##") + " unreadable " + tmux.Chip("yellow", "▲", true))
	}
	if e.barSet && text == e.bar {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), barTimeout)
	defer cancel()
	if err := e.Tmux.SetOptionContext(ctx, "", status.OptRuns, text); err != nil {
		e.logf("", "", "runs: status bar: %v", err)
		return
	}
	e.bar, e.barSet = text, true
}
