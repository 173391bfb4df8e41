package status

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// The status bar contract: `owt tmux init` replaces StatusPlaceholder in
// status-left/status-right with StatusFormat, which reads the global user
// options OptRuns (the runs in flight, kept by the run engine) and
// OptStatusLine, or OptStatusCompact on a narrow client. owt rewrites them
// on every change, so a redraw spawns no process.
const (
	StatusPlaceholder = "#{owt_status}"
	OptStatusLine     = "@owt-status-line"
	// OptStatusCompact is the summary in a few columns (counts only:
	// "▲2 ●3 ○1"), for a phone's terminal; owt writes it beside
	// OptStatusLine.
	OptStatusCompact = "@owt-status-compact"
	// OptStatusStyle is the user's choice of the bar's form: "full",
	// "compact", or unset ("auto"): compact on a client narrower than
	// CompactBelow columns. tmux chooses at each redraw, per client.
	OptStatusStyle = "@owt-status-style"
	CompactBelow   = 80
	OptRuns        = "@owt-runs"
	// OptRestore is the restore mark, "⟲ N": N agents whose sessions
	// were lost with a tmux server or the machine, that owt restore
	// (Alt+r) brings back. owt tmux init sets it when tmux starts; owt
	// restore and every agent brought back update it.
	OptRestore = "@owt-restore"
	// RestoreGlyph marks agents to restore.
	RestoreGlyph = "⟲"
)

// StatusFormat is what #{owt_status} becomes: the restore mark, the runs,
// and the summary in the form OptStatusStyle asks for, or that the
// client's width calls for. Formats only: no process per redraw.
var StatusFormat = "#{?" + OptRestore + ",#{" + OptRestore + "} ,}#{?" + OptRuns + ",#{" + OptRuns + "} ,}" + summaryChoice

// summaryChoice picks the full or the compact summary: the style the
// user set, else the client's width (full where there is no client, as
// for display-message -p from a script).
var summaryChoice = fmt.Sprintf("#{?#{==:#{%[1]s},compact},%[2]s,#{?#{==:#{%[1]s},full},%[3]s,#{?#{client_width},#{?#{e|<:#{client_width},%[4]d},%[2]s,%[3]s},%[3]s}}}",
	OptStatusStyle, "#{"+OptStatusCompact+"}", "#{"+OptStatusLine+"}", CompactBelow)

// PastStatusFormats are what earlier owts put in place of #{owt_status}:
// owt tmux init brings them to StatusFormat, owt uninstall removes them.
var PastStatusFormats = []string{
	"#{?" + OptRestore + ",#{" + OptRestore + "} ,}#{?" + OptRuns + ",#{" + OptRuns + "} ,}#{" + OptStatusLine + "}",
}

// RestoreMark is the restore mark for n agents to bring back, in tmux
// style; "" for none.
func RestoreMark(n int) string {
	if n <= 0 {
		return ""
	}
	return tmux.Chip("magenta", fmt.Sprintf("%s %d", RestoreGlyph, n), true)
}

// PublishRestore sets the restore mark for n agents to bring back.
func PublishRestore(tm *tmux.Client, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	return tm.SetOptionContext(ctx, "", OptRestore, RestoreMark(n))
}

// PublishSummary writes the summary of every repository's agents into the
// global option the status bar reads (owt tmux init calls it too, so the
// bar is right from the start).
func PublishSummary(tm *tmux.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	return publishSummary(ctx, tm)
}

// publishSummary is PublishSummary with its tmux call bounded by ctx.
func publishSummary(ctx context.Context, tm *tmux.Client) error {
	recs, err := workspace.AllRecords()
	if err != nil {
		return err
	}
	return tm.SetOptionsContext(ctx, "", Current(recs).Options())
}

// Options are the bar's options that say s: the full summary and the
// compact one, set together in one tmux call.
func (s Summary) Options() map[string]string {
	return map[string]string{OptStatusLine: s.Render(StyleTmux), OptStatusCompact: s.RenderCompact(StyleTmux)}
}

// Current is the summary of recs and of the agents on the hosts the
// monitor follows (their last status files): what the bar shows.
func Current(recs []*state.Record) Summary {
	return SummarizeWithHosts(recs, state.HostStatuses())
}

// SummarizeWithHosts is Summarize over recs and the agents of hosts, each
// of those named NAME@HOST; the hosts whose stream is down are noted,
// their agents counted with their last known status.
func SummarizeWithHosts(recs []*state.Record, hosts []state.HostStatus) Summary {
	all := recs
	var down []string
	for _, h := range hosts {
		if !h.Reachable {
			down = append(down, downWords(h, time.Now()))
		}
		for _, a := range h.Agents {
			r := &state.Record{Name: a.Name + "@" + h.Host, Repo: a.Repo, Tool: a.Tool, NoAgent: a.Tool == "", Status: a.Status, StatusSince: a.Since}
			if a.NeedsYou {
				r.Reactions = map[string]*state.Reaction{"host": {NeedsYou: "on " + h.Host}}
			}
			all = append(all[:len(all):len(all)], r)
		}
	}
	s := Summarize(all)
	s.Unreachable = down
	return s
}

// downWords name an unreachable host and, when it was ever heard, how
// long ago: "box, seen 3m ago".
func downWords(h state.HostStatus, now time.Time) string {
	if h.At.IsZero() {
		return h.Host
	}
	return h.Host + ", seen " + workspace.Age(now.Sub(h.At)) + " ago"
}

// Summary counts agents by status and names the ones that need the user.
// Shells are not agents and are not counted, but one that needs the user
// (its pull request's CI fails) is named.
type Summary struct {
	Total   int            `json:"total"`
	Counts  map[string]int `json:"counts"`  // status → agents
	Waiting []string       `json:"waiting"` // names of agents that need you, longest waiting first
	// Limited are those of Waiting that a usage limit stopped: the bar
	// marks them with the limited glyph.
	Limited []string `json:"limited,omitempty"`
	// Unreachable are the hosts whose status stream is down, each with
	// how long ago it was last heard: their agents are counted with their
	// last known status.
	Unreachable []string `json:"unreachable,omitempty"`
}

// Summarize builds the summary of records. Shells (--no-agent) are not
// agents: they are left out of the counts, and named only when a reaction
// needs the user there (no agent can be told, so it is the user's).
func Summarize(recs []*state.Record) Summary {
	s := Summary{Counts: map[string]int{}, Waiting: []string{}}
	var waiting []*state.Record
	for _, r := range recs {
		if r.NoAgent {
			if r.NeedsUser() {
				waiting = append(waiting, r)
			}
			continue
		}
		s.Total++
		s.Counts[string(r.Status)]++
		// An escalated reaction needs the user as much as a question does.
		if r.Status.NeedsYou() || r.NeedsUser() {
			waiting = append(waiting, r)
		}
	}
	sort.SliceStable(waiting, func(i, j int) bool { return waiting[i].StatusSince.Before(waiting[j].StatusSince) })
	for _, r := range waiting {
		s.Waiting = append(s.Waiting, r.Name)
		if r.Status == state.Limited {
			s.Limited = append(s.Limited, r.Name)
		}
	}
	return s
}

// Style is how rendered text is decorated.
type Style int

// Styles of Render.
const (
	StylePlain Style = iota // no decoration (NO_COLOR, pipes)
	StyleTmux               // tmux #[…] style markup, for the status bar
	StyleANSI               // terminal colours
)

// Glyph is the one-character sign of a status, shared by the status bar
// and the picker.
func Glyph(status string) string {
	switch state.Status(status) {
	case state.Waiting:
		return "▲"
	case state.Working, state.Starting:
		return "●"
	case state.Idle:
		return "○"
	case state.Exited:
		return "✕"
	case state.Limited:
		return "◷"
	}
	return "?"
}

// shownWaiting is how many names of waiting agents the bar spells out.
const shownWaiting = 3

type segment struct {
	text  string
	color string // a tmux colour name, mapped to ANSI for terminals
	bold  bool
}

// segments are the parts of the summary: who needs you, then how many
// agents work, are idle, have exited. An empty summary has none.
func (s Summary) segments() []segment {
	var segs []segment
	if n := len(s.Waiting); n > 0 {
		names := s.Waiting
		if n > shownWaiting {
			names = names[:shownWaiting]
		}
		if len(s.Limited) > 0 {
			marked := make([]string, len(names))
			for i, name := range names {
				marked[i] = name
				if slices.Contains(s.Limited, name) {
					marked[i] = Glyph(string(state.Limited)) + name // stopped by a usage limit
				}
			}
			names = marked
		}
		text := Glyph(string(state.Waiting)) + " " + strings.Join(names, " ")
		if n > shownWaiting {
			text += fmt.Sprintf(" +%d", n-shownWaiting)
		}
		segs = append(segs, segment{text: text, color: "yellow", bold: true})
	}
	if n := s.Counts[string(state.Working)] + s.Counts[string(state.Starting)]; n > 0 {
		segs = append(segs, segment{text: fmt.Sprintf("%s %d", Glyph(string(state.Working)), n), color: "green"})
	}
	if n := s.Counts[string(state.Idle)]; n > 0 {
		segs = append(segs, segment{text: fmt.Sprintf("%s %d", Glyph(string(state.Idle)), n), color: "cyan"})
	}
	if n := s.Counts[string(state.Exited)]; n > 0 {
		segs = append(segs, segment{text: fmt.Sprintf("%s %d", Glyph(string(state.Exited)), n), color: "red"})
	}
	if len(s.Unreachable) > 0 {
		segs = append(segs, segment{text: "⚠ unreachable: " + strings.Join(s.Unreachable, "; "), color: "red"})
	}
	return segs
}

// compactSegments are the parts of the compact summary: a count per
// status, glyph and number together, no names ("▲2 ●3 ○1 ✕1 ⚠1"). Who
// needs you is first in Alt+s and Alt+o.
func (s Summary) compactSegments() []segment {
	var segs []segment
	add := func(status state.Status, n int, color string, bold bool) {
		if n > 0 {
			segs = append(segs, segment{text: fmt.Sprintf("%s%d", Glyph(string(status)), n), color: color, bold: bold})
		}
	}
	add(state.Waiting, len(s.Waiting), "yellow", true)
	add(state.Working, s.Counts[string(state.Working)]+s.Counts[string(state.Starting)], "green", false)
	add(state.Idle, s.Counts[string(state.Idle)], "cyan", false)
	add(state.Exited, s.Counts[string(state.Exited)], "red", false)
	if n := len(s.Unreachable); n > 0 {
		segs = append(segs, segment{text: fmt.Sprintf("⚠%d", n), color: "red"})
	}
	return segs
}

var ansiColor = map[string]string{"yellow": "33", "green": "32", "cyan": "36", "red": "31"}

// Render returns the summary as one line in the given style; "" when
// there are no agents, so an empty bar stays empty.
func (s Summary) Render(style Style) string { return render(s.segments(), style) }

// RenderCompact is Render of the compact summary, for a narrow bar.
func (s Summary) RenderCompact(style Style) string { return render(s.compactSegments(), style) }

func render(segs []segment, style Style) string {
	parts := make([]string, len(segs))
	for i, g := range segs {
		switch style {
		case StyleTmux:
			// A chip: its own background and foreground, so it reads
			// on any status-style (a green count on tmux's default
			// green bar did not).
			parts[i] = tmux.Chip(g.color, g.text, g.bold)
		case StyleANSI:
			code := ansiColor[g.color]
			if g.bold {
				code = "1;" + code
			}
			parts[i] = "\x1b[" + code + "m" + g.text + "\x1b[0m"
		default:
			parts[i] = g.text
		}
	}
	return strings.Join(parts, " ")
}
