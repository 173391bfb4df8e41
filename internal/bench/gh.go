package main

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/react"
)

// ghFigures prints how many gh calls the reactions' poll schedule makes
// in a minute for 10 open pull requests with pending checks, one of them
// getting a failing head (its log read once). It counts the schedule's
// decisions on a simulated clock ticking each second, as the monitor
// does; it does not time gh.
func ghFigures() {
	cfg := config.Defaults()
	interval := cfg.PR.PollInterval.Duration
	calls := react.PollCalls(10, 1, cfg, time.Minute)
	fmt.Printf("%-44s %7d   (budget ≤ %d: 1 per open PR per %s poll, + 1 per changed PR)\n",
		"gh calls per minute, 10 open PRs, 1 changed", calls, 10*int(time.Minute/interval)+1, interval)
}
