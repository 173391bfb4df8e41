package run

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/tmux"
)

// The status bar shows each run of this server that has not finished:
// "⏵auth 4/7 ▲1" (its name, tasks finished of all, and how many need
// you: asking, failed or blocked by a conflict), "⏸" instead of "⏵" when
// it is paused or stopped, "✗" when it ended failed. The engine keeps
// the text in the global option status.OptRuns, which the bar reads:
// no process runs per redraw.

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
			part += " " + tmux.Chip("yellow", fmt.Sprintf("▲%d", n), true)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}
