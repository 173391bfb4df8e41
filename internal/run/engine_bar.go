package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/statusbar"
)

// The status bar shows each run of this server that has not finished:
// "⏵auth 4/7 ▲1" (its name, tasks finished of all, and how many need
// you: asking, failed or blocked by a conflict), "⏸" instead of "⏵" when
// it is paused or stopped, "✗" when it ended failed. The engine keeps
// the text in the global option workspace.OptRuns, which the bar reads:
// no process runs per redraw.

// barTimeout bounds the one tmux call that sets the option.
const barTimeout = 2 * time.Second

// BarText is the status bar's text for the runs registered on the tmux
// server at socket, in tmux style markup; "" when none is unfinished.
func BarText(runs []*Run, socket string) string {
	var parts []string
	for _, r := range runs {
		if r.Socket != socket || r.State == Finished {
			continue
		}
		sign := "⏵"
		switch r.State {
		case Paused, Stopped:
			sign = "⏸"
		case RunFailed:
			sign = "✗" // stays until the user retries, skips or forgets
		}
		v := r.View()
		// '#' starts a format in tmux; run names never hold one, but be safe.
		part := fmt.Sprintf("%s%s %d/%d", sign, strings.ReplaceAll(r.Name, "#", "##"), v.Finished, len(v.Tasks))
		if n := r.NeedingYou(); n > 0 {
			part += fmt.Sprintf(" #[fg=yellow,bold]▲%d#[default]", n)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// publishBar sets the bar's runs option from runs (this server's and
// others', as listed) when its text changed: a tmux call only then. The
// first call always sets it, so a text left by an earlier monitor goes.
func (e *Engine) publishBar(runs []*Run, unreadable []string) {
	if e.Tmux == nil {
		return
	}
	text := BarText(runs, e.Socket)
	for _, name := range unreadable {
		// Its file cannot be read: nothing of it is known but that the
		// user must look ('owt run list' says where).
		text = strings.TrimSpace(text + " ✗" + strings.ReplaceAll(name, "#", "##") + " unreadable #[fg=yellow,bold]▲#[default]")
	}
	if e.barSet && text == e.bar {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), barTimeout)
	defer cancel()
	if err := e.Tmux.SetOptionContext(ctx, "", statusbar.OptRuns, text); err != nil {
		e.logf("runs: status bar: %v", err)
		return
	}
	e.bar, e.barSet = text, true
}
