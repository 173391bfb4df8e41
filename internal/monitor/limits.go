package monitor

import (
	"context"
	"slices"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
)

// OptUsage is the user option the monitor fills with usage windows, for a
// status bar that shows them (#{@owt-usage}): on each agent's session its
// own ("5h 82% wk 41%"), and globally the highest share of each window
// among this server's agents. Set only when it changes: a redraw reads an
// option and spawns nothing.
const OptUsage = "@owt-usage"

// samePeriod is how far two reset times of one window may lie apart and
// still be one period (Codex's older resets_in_seconds moves with each
// event's time).
const samePeriod = 10 * time.Minute

// limitKey is one window of one agent.
type limitKey struct {
	repo, name, window string
}

// showLimits runs after a usage tick: it shows the agents' usage windows
// in tmux (OptUsage) and tells, once per reset period, a window past
// [usage] warn_at. The first look at an agent's windows only notes them,
// as the first look at a status does: a monitor started again does not
// tell again what the last one told.
func (m *monitor) showLimits(now time.Time) {
	if m.tracker == nil {
		return
	}
	if m.limitsShown == nil {
		m.limitsShown = map[string]string{}
		m.warned = map[limitKey]time.Time{}
		m.limitsLooked = map[recKey]bool{}
	}
	var fleet usage.Limits
	changed := map[string]string{}
	for _, r := range m.recs.records {
		if r.NoAgent || !m.usageOwner(r) {
			continue
		}
		all, read := m.tracker.Limits(r.Repo, r.Name)
		ls := all.Current(now)
		fleet = highest(fleet, ls)
		if r.Session != "" && r.Swarm == nil {
			m.queueUsage(changed, "="+r.Session+":", ls.Brief())
		}
		if !read {
			continue // not read yet: no look
		}
		key := recKey{r.Repo, r.Name}
		first := !m.limitsLooked[key]
		m.limitsLooked[key] = true
		m.warnLimits(r, ls, first, now)
	}
	m.queueUsage(changed, "", usage.Sorted(fleet).Brief())
	m.setUsageOptions(changed)
}

// queueUsage notes OptUsage's value for target ("" global) when it is not
// what tmux shows.
func (m *monitor) queueUsage(changed map[string]string, target, value string) {
	if old, ok := m.limitsShown[target]; ok && old == value {
		return
	}
	changed[target] = value
}

// setUsageOptions sets the changed OptUsage values in one tmux call (the
// first look sets every session's: one process, not one a session). A
// session gone meanwhile stops that call at its command; then each is set
// on its own, and what failed is tried again next time.
func (m *monitor) setUsageOptions(changed map[string]string) {
	if len(changed) == 0 {
		return
	}
	targets := make([]string, 0, len(changed))
	for t := range changed {
		targets = append(targets, t)
	}
	slices.Sort(targets) // the global one ("") first
	sets := make([]tmux.OptionSet, len(targets))
	for i, t := range targets {
		sets[i] = tmux.OptionSet{Target: t, Options: map[string]string{OptUsage: changed[t]}}
	}
	if err := m.tm.SetOptionSetsContext(context.Background(), sets...); err == nil {
		for _, t := range targets {
			m.limitsShown[t] = changed[t]
		}
		return
	}
	for _, t := range targets {
		if err := m.tm.SetOption(t, OptUsage, changed[t]); err != nil {
			m.logf("show usage windows: %v", err)
			continue
		}
		m.limitsShown[t] = changed[t]
	}
}

// highest is, per window, the larger share of fleet and ls.
func highest(fleet, ls usage.Limits) usage.Limits {
	for _, l := range ls {
		found := false
		for i := range fleet {
			if fleet[i].Window == l.Window {
				found = true
				if l.UsedPercent > fleet[i].UsedPercent {
					fleet[i] = l
				}
			}
		}
		if !found {
			fleet = append(fleet, l)
		}
	}
	return fleet
}

// warnLimits tells each window of r's past warn_at of its repository's
// config, once per reset period.
func (m *monitor) warnLimits(r *state.Record, ls usage.Limits, first bool, now time.Time) {
	if len(ls) == 0 {
		return
	}
	v := m.recs.repo(r.Repo, m.logf)
	if v.ws == nil {
		return
	}
	cfg := v.ws.Config
	at := cfg.Usage.WarnAt
	for _, l := range ls {
		if at <= 0 || l.UsedPercent < at {
			continue
		}
		k := limitKey{r.Repo, r.Name, l.Window}
		if prev, ok := m.warned[k]; ok && (prev.Equal(l.ResetsAt) || absDuration(prev.Sub(l.ResetsAt)) < samePeriod) {
			continue
		}
		m.warned[k] = l.ResetsAt
		if first {
			continue
		}
		if _, ours := m.alive[recKey{r.Repo, r.Name}]; !ours {
			continue
		}
		if !m.notifier.wanted(cfg.Notify, "usage") {
			continue
		}
		m.notifier.notifyText(r, cfg.Notify, m.paneTTY(r), notice{text: limitText(r.Name, l, now), status: "usage", event: "usage"})
	}
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// limitText is the notice of window l of agent name.
func limitText(name string, l usage.Limit, now time.Time) string {
	window := l.Window + " usage window"
	switch l.Window {
	case usage.Window5h:
		window = "5-hour usage limit"
	case usage.WindowWeekly:
		window = "weekly usage limit"
	}
	text := "owt: " + name + " has used " + usage.FormatPercent(l.UsedPercent) + " of its " + window
	if !l.ResetsAt.IsZero() {
		text += " (resets " + usage.FormatReset(l.ResetsAt, now) + ")"
	}
	return text
}
