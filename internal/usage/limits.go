package usage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// The usage windows a tool reports, by kind. What each tool really gives
// (the versions owt is tested with):
//
//   - Claude Code 2.1.330 puts its subscription's windows into the JSON a
//     statusLine command gets on stdin, and nowhere else owt can read (not
//     the transcript, not a hook's event):
//
//     "rate_limits": {"five_hour": {"used_percentage": 41.5, "resets_at": 1764428400},
//     "seven_day": {"used_percentage": 12, "resets_at": 1764864000}}
//
//     used_percentage is the utilization the API's unified rate-limit
//     headers carry, times 100, rounded to one decimal and capped at 100;
//     resets_at is in Unix seconds. A window Claude has not heard of yet is
//     left out, and rate_limits with it when it knows none (an API key, or
//     before the first answer of a session). A third key, spend_limit,
//     is an enterprise gateway's spend, no window: owt leaves it out. owt
//     registers "owt hook claude statusline" as the worktree's statusLine
//     (see package agent, MergeStatusLine) and keeps what it is given in a
//     small file per agent (LimitsPath) the monitor reads.
//
//   - Codex 0.169.0 writes each rate-limit snapshot into its rollout file
//     (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), in its token_count
//     events:
//
//     {"type":"event_msg","payload":{"type":"token_count","info":…,
//     "rate_limits":{"primary":{"used_percent":12.0,"window_minutes":300,"resets_at":1764428400},
//     "secondary":{"used_percent":40.0,"window_minutes":10080,"resets_at":1764864000},…}}}
//
//     used_percent is 0-100 (it may pass 100); primary is the 5-hour
//     window and secondary the weekly one as the server sends them today,
//     so owt names a window by its window_minutes, not by its place.
//     Older Codex wrote resets_in_seconds (from the event's timestamp)
//     instead of resets_at: both are read.
//
//   - Gemini CLI 0.61.0 fetches its per-model quota (remainingFraction,
//     resetTime) into memory for /stats and its footer, and writes it to
//     no file, hook or command owt can read: owt shows no windows for
//     Gemini. OpenCode 1.18.33 has no windows of its own either.
const (
	Window5h     = "5h"
	WindowWeekly = "weekly"
)

// Where a window was read from.
const (
	FromClaudeStatusLine = "claude statusline"
	FromCodexSession     = "codex session"
)

// Limit is one usage window of an agent's account as its tool last
// reported it.
type Limit struct {
	// Window is 5h, weekly, or the window's length ("90m", "3d") when it
	// is neither.
	Window      string    `json:"window"`
	UsedPercent float64   `json:"used_percent"`
	ResetsAt    time.Time `json:"resets_at,omitzero"`
	// SeenAt is when the tool said so.
	SeenAt time.Time `json:"seen_at"`
	From   string    `json:"from"`
}

// Limits are an agent's windows, 5h first, then weekly, then the others.
type Limits []Limit

// Of is the window of that kind, if any.
func (ls Limits) Of(window string) (Limit, bool) {
	for _, l := range ls {
		if l.Window == window {
			return l, true
		}
	}
	return Limit{}, false
}

// Current is the windows that have not reset by now: a window past its
// reset says nothing of the next one.
func (ls Limits) Current(now time.Time) Limits {
	var out Limits
	for _, l := range ls {
		if l.ResetsAt.IsZero() || now.Before(l.ResetsAt) {
			out = append(out, l)
		}
	}
	return out
}

func windowRank(w string) int {
	switch w {
	case Window5h:
		return 0
	case WindowWeekly:
		return 1
	}
	return 2
}

// Sorted is ls in the order shown: 5h, weekly, then the others by name.
func Sorted(ls Limits) Limits {
	out := append(Limits(nil), ls...)
	out.sort()
	return out
}

func (ls Limits) sort() {
	sort.SliceStable(ls, func(i, j int) bool {
		if a, b := windowRank(ls[i].Window), windowRank(ls[j].Window); a != b {
			return a < b
		}
		return ls[i].Window < ls[j].Window
	})
}

// windowOf names a window of that many minutes.
func windowOf(minutes int64) string {
	switch {
	case minutes == 300:
		return Window5h
	case minutes == 7*24*60:
		return WindowWeekly
	case minutes%(24*60) == 0:
		return strconv.FormatInt(minutes/(24*60), 10) + "d"
	case minutes%60 == 0:
		return strconv.FormatInt(minutes/60, 10) + "h"
	}
	return strconv.FormatInt(minutes, 10) + "m"
}

// percentOK: a percentage a tool could mean (Codex's may pass 100).
func percentOK(p float64) bool { return !math.IsNaN(p) && p >= 0 && p <= 1000 }

// unixTime is a reset time in Unix seconds, zero when it is none a tool
// could mean.
func unixTime(sec float64) time.Time {
	if math.IsNaN(sec) || sec <= 0 || sec > 1e11 {
		return time.Time{}
	}
	return time.Unix(int64(sec), 0).UTC()
}

// ParseClaudeStatusLine reads the usage windows out of the JSON Claude
// Code gives a statusLine command (see above). No rate_limits is no
// windows and no error.
func ParseClaudeStatusLine(data []byte, now time.Time) (Limits, error) {
	// Each window on its own: one field of a shape owt does not know (a
	// future Claude Code's resets_at as a date) costs that window only,
	// not both.
	var in struct {
		RateLimits map[string]json.RawMessage `json:"rate_limits"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("read Claude's statusline JSON: %w", err)
	}
	var out Limits
	for key, raw := range in.RateLimits {
		var window string
		switch key {
		case "five_hour":
			window = Window5h
		case "seven_day":
			window = WindowWeekly
		default:
			continue // spend_limit: money, no window
		}
		var w struct {
			Used     json.RawMessage `json:"used_percentage"`
			ResetsAt json.RawMessage `json:"resets_at"`
		}
		if json.Unmarshal(raw, &w) != nil {
			continue
		}
		var used float64
		if json.Unmarshal(w.Used, &used) != nil || !percentOK(used) {
			continue
		}
		out = append(out, Limit{Window: window, UsedPercent: used, ResetsAt: resetsAt(w.ResetsAt), SeenAt: now.UTC(), From: FromClaudeStatusLine})
	}
	out.sort()
	return out, nil
}

// resetsAt is a reset time as Unix seconds (a number) or an RFC 3339
// date (a string); zero when it is neither.
func resetsAt(raw json.RawMessage) time.Time {
	var sec float64
	if json.Unmarshal(raw, &sec) == nil {
		return unixTime(sec)
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if t, err := time.Parse(time.RFC3339, text); err == nil {
			return unixTime(float64(t.Unix()))
		}
	}
	return time.Time{}
}

// codexLimits reads the windows of a token_count event's rate_limits
// (see above); at is the event's time.
func codexLimits(raw json.RawMessage, at time.Time) Limits {
	var rl map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &rl) != nil {
		return nil
	}
	var out Limits
	for _, key := range []string{"primary", "secondary"} {
		var w *struct {
			Used     *float64 `json:"used_percent"`
			Minutes  int64    `json:"window_minutes"`
			ResetsAt float64  `json:"resets_at"`
			ResetsIn *float64 `json:"resets_in_seconds"`
		}
		if json.Unmarshal(rl[key], &w) != nil || w == nil || w.Used == nil || !percentOK(*w.Used) || w.Minutes <= 0 {
			continue
		}
		l := Limit{Window: windowOf(w.Minutes), UsedPercent: *w.Used, ResetsAt: unixTime(w.ResetsAt), SeenAt: at.UTC(), From: FromCodexSession}
		if l.ResetsAt.IsZero() && w.ResetsIn != nil && *w.ResetsIn >= 0 && *w.ResetsIn < 1e9 {
			l.ResetsAt = at.Add(time.Duration(*w.ResetsIn) * time.Second).UTC().Truncate(time.Second)
		}
		out = append(out, l)
	}
	out.sort()
	return out
}

// LimitsFile is what "owt hook claude statusline" keeps of one agent's
// windows.
type LimitsFile struct {
	Repo   string `json:"repo"`
	Name   string `json:"name"`
	Limits Limits `json:"limits"`
}

// LimitsPath is where the windows Claude gave agent name of repo are
// kept: beside the usage files, one small file an agent, named by a hash
// (names are free text to the file system).
func LimitsPath(repo, name string) string {
	sum := sha256.Sum256([]byte(repo + "\x00" + name))
	return filepath.Join(Dir(), "limits", hex.EncodeToString(sum[:12])+".json")
}

// limitsFresh is how long windows written stay seen: Claude runs its
// statusLine at every change of its screen, and the same figures are
// written again only after this.
const limitsFresh = time.Minute

// WriteLimits keeps ls as the windows of agent name of repo, unless the
// file holds the same, seen less than limitsFresh ago.
func WriteLimits(repo, name string, ls Limits) error {
	path := LimitsPath(repo, name)
	if old, err := ReadLimits(path); err == nil && sameWindows(old.Limits, ls) &&
		(len(ls) == 0 || ls[0].SeenAt.Sub(old.Limits[0].SeenAt) < limitsFresh) {
		return nil
	}
	data, err := json.Marshal(LimitsFile{Repo: repo, Name: name, Limits: ls})
	if err != nil {
		return fmt.Errorf("keep usage windows of %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keep usage windows of %s: %w", name, err)
	}
	if err := atomicfile.WriteUnsynced(path, data); err != nil {
		return fmt.Errorf("keep usage windows of %s: %w", name, err)
	}
	return nil
}

// sameWindows: a and b say the same but for when they were seen.
func sameWindows(a, b Limits) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.SeenAt, y.SeenAt = time.Time{}, time.Time{}
		if x != y {
			return false
		}
	}
	return true
}

// ReadLimits reads a file WriteLimits wrote.
func ReadLimits(path string) (*LimitsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read usage windows: %w", err)
	}
	var f LimitsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read usage windows from %s: %w", path, err)
	}
	return &f, nil
}

// claudeLimits reads the windows kept for s, when the file changed since
// mod (its modification time, nanoseconds); ok is false when nothing
// changed.
func claudeLimits(s Source, mod int64) (ls Limits, newMod int64, ok bool) {
	path := LimitsPath(s.Repo, s.Name)
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil, mod, false
	}
	if info.ModTime().UnixNano() == mod {
		return nil, mod, false
	}
	f, err := ReadLimits(path)
	if err != nil || f.Repo != s.Repo || f.Name != s.Name {
		return nil, info.ModTime().UnixNano(), false
	}
	// Windows seen before this agent was made are an earlier agent's of
	// the same name.
	var out Limits
	for _, l := range f.Limits {
		if s.Since.IsZero() || !l.SeenAt.Before(s.Since) {
			out = append(out, l)
		}
	}
	return out, info.ModTime().UnixNano(), true
}

// newest is the windows of whichever list was seen last.
func newest(a, b Limits) Limits {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	if b[0].SeenAt.After(a[0].SeenAt) {
		return b
	}
	return a
}

// AgentLimits are one agent's current windows (owt usage).
type AgentLimits struct {
	Repo    string `json:"repo,omitempty"`
	Agent   string `json:"agent"`
	Tool    string `json:"tool,omitempty"`
	Windows Limits `json:"windows"`
}

// LimitsReport is the current windows of the agents of files, by repo
// (when there are several) and name.
func LimitsReport(files []*File, now time.Time) []AgentLimits {
	var out []AgentLimits
	multi := len(files) > 1
	for _, f := range files {
		for name, a := range f.Agents {
			ls := a.Limits.Current(now)
			if len(ls) == 0 {
				continue
			}
			al := AgentLimits{Agent: name, Tool: a.Tool, Windows: ls}
			if multi {
				al.Repo = f.Repo
			}
			out = append(out, al)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Repo != out[j].Repo {
			return out[i].Repo < out[j].Repo
		}
		return out[i].Agent < out[j].Agent
	})
	return out
}

// FormatPercent is a used share as shown: whole percents.
func FormatPercent(p float64) string {
	return strconv.Itoa(int(math.Floor(p))) + "%"
}

// FormatReset says when a window resets, from now: "in 1h20m", "in 3d4h".
func FormatReset(at, now time.Time) string {
	if at.IsZero() {
		return "?"
	}
	d := at.Sub(now)
	if d <= 0 {
		return "now"
	}
	d = d.Round(time.Minute)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0:
		return fmt.Sprintf("in %dd%dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("in %dh%02dm", hours, mins)
	}
	return fmt.Sprintf("in %dm", max(mins, 1))
}

// FormatAgo says how long before now at was: "3m ago", "just now".
func FormatAgo(at, now time.Time) string {
	if now.Sub(at) < time.Minute {
		return "just now"
	}
	return strings.TrimPrefix(FormatReset(now, at), "in ") + " ago"
}

// Brief is the windows in a few words for a bar or a row: "5h 82% wk 41%".
func (ls Limits) Brief() string {
	var b []byte
	for _, l := range ls {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		name := l.Window
		if name == WindowWeekly {
			name = "wk"
		}
		b = append(b, name+" "+FormatPercent(l.UsedPercent)...)
	}
	return string(b)
}
