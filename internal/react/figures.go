package react

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// PollCalls counts the gh calls the poll schedule makes over span, ticking
// once a second, for open PRs whose checks stay pending, plus changed of
// them whose head fails once (one more call each, for its log): the
// figure make bench prints against the budget of one call per open PR
// per interval plus one per changed PR.
func PollCalls(prs, changed int, cfg config.Config, span time.Duration) int {
	x := &Reactor{}
	recs := make([]*state.Record, prs)
	for i := range recs {
		recs[i] = &state.Record{Name: fmt.Sprint("pr", i), Repo: "/bench", PR: &state.PR{Number: i + 1, State: "OPEN", Checks: "pending"}}
	}
	calls := 0
	start := time.Unix(0, 0)
	for s := time.Duration(0); s < span; s += time.Second {
		for i, r := range recs {
			if !x.pollDue(r, cfg, start.Add(s)) {
				continue
			}
			calls++
			if i < changed && r.PR.Head == "" { // its head fails once: the log is read once
				r.PR.Head = "failed"
				calls++
			}
		}
	}
	return calls
}
