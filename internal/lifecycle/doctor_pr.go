package lifecycle

import (
	"fmt"
	"sort"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// PRStateStale is owt doctor's finding for open pull requests whose
// recorded state the monitor could not refresh (gh not logged in, …).
const PRStateStale = "pr-state-stale"

// stalePRNames bounds the names one stale-PR finding lists.
const stalePRNames = 5

// StalePRs are doctor's findings about pull request state that is stale:
// one per reason, naming the worktrees it holds back.
func StalePRs(recs []*state.Record) []Finding {
	byWhy := map[string][]string{}
	for _, r := range recs {
		if r.PR != nil && r.PR.State == "OPEN" && r.PR.Stale != "" {
			byWhy[r.PR.Stale] = append(byWhy[r.PR.Stale], r.Name)
		}
	}
	whys := make([]string, 0, len(byWhy))
	for why := range byWhy {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	var out []Finding
	for _, why := range whys {
		names := byWhy[why]
		sort.Strings(names)
		out = append(out, Finding{Kind: PRStateStale, Name: names[0],
			Detail: fmt.Sprintf("the pull request state of %s is stale: %s", untrusted.Some(names, stalePRNames), untrusted.CleanLine(why)),
			Action: "the monitor keeps trying (less often each time); once gh answers, it catches up: CI and review reactions run again"})
	}
	return out
}
