package agent

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// A usage limit or quota stops an agent until it resets: the status
// "limited", which needs the user (or the reset) rather than a finished
// turn. The texts below were read in the tools' own code at the versions
// testdata/realtools pins:
//
//	Claude Code 2.1.330  StopFailure's error "rate_limit" (its enum:
//	                     authentication_failed … billing_error, rate_limit,
//	                     overloaded …); on screen "You've hit your
//	                     5-hour limit · resets 3pm (Europe/Paris)" (limit
//	                     names: 5-hour, weekly, Opus, Sonnet, session …),
//	                     "You've hit your monthly spend limit", "You're out
//	                     of usage credits".
//	Codex 0.169.0        "■ You've hit your usage limit. … try again at
//	                     3:15 PM." (or "Dec 3rd, 2026 3:15 PM" on another
//	                     day), "Quota exceeded. Check your plan and billing
//	                     details."
//	Gemini CLI 0.61.0    its quota dialog: "Usage limit reached for
//	                     gemini-2.5-pro." / "Access resets at 3:45 PM PST."
//	                     (Intl, en-US, local zone); "You have exhausted your
//	                     daily quota on this model."
//	OpenCode 1.18.33     "Usage limit reached. It will reset in 2 hours 5
//	                     minutes." and, while it retries a provider's 429,
//	                     "Too Many Requests [retrying in 5s attempt #2]".
//
// Every tool prints its reset time in the machine's own zone, the zone
// owt runs in beside it, so a time without a zone is read in time.Local.

// limitText matches a tool's words for a usage limit or quota.
var limitText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)you've hit your [^\n.·]*limit` +
		`|you're out of usage credits` +
		`|usage limit reached` +
		`|exhausted your daily quota` +
		`|quota exceeded\. check your plan` +
		`|too many requests \[retrying` +
		`|rate limit(?:ed| exceeded| reached)`)
})

// LimitOf reads a usage limit from a tool's message (a failed turn's
// error, a hook's error details), with its reset time when the message
// gives one; now is when the message was seen.
func LimitOf(message string, now time.Time) (state.Limit, bool) {
	loc := limitText().FindStringIndex(message)
	if loc == nil {
		return state.Limit{}, false
	}
	l := state.Limit{Text: untrusted.From(firstLine(message[lineStart(message, loc[0]):]))}
	l.Reset = ResetOf(message[loc[0]:], now)
	return l, true
}

// RateLimitError is Claude Code's StopFailure error for a usage limit.
const RateLimitError = "rate_limit"

// ResetOf reads when a limit resets from the words after it: "resets
// 3pm", "resets 3:30pm (Europe/Paris)", "resets Dec 3 at 9am", "try again
// at 3:15 PM", "try again at Dec 3rd, 2026 3:15 PM", "Access resets at
// 3:45 PM PST", "reset in 2 hours 5 minutes", "retrying in 5s". Zero when
// it says none.
func ResetOf(s string, now time.Time) time.Time {
	if m := resetIn().FindStringSubmatch(s); m != nil {
		if d := spokenDuration(m[1]); d > 0 {
			return now.Add(d).Truncate(time.Second)
		}
	}
	m := resetAt().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}
	}
	month, day, year, hour, minute, ampm, zone := m[1], m[2], m[3], m[4], m[5], strings.ToLower(m[6]), m[7]
	loc := time.Local
	if zone != "" {
		if l, err := time.LoadLocation(zone); err == nil {
			loc = l
		}
	}
	h, _ := strconv.Atoi(hour)
	mi, _ := strconv.Atoi(minute)
	if h < 1 || h > 12 || mi > 59 {
		return time.Time{}
	}
	if ampm == "pm" && h != 12 {
		h += 12
	} else if ampm == "am" && h == 12 {
		h = 0
	}
	local := now.In(loc)
	y, mo, d := local.Date()
	if month != "" {
		t, err := time.Parse("Jan", month[:3])
		if err != nil {
			return time.Time{}
		}
		mo = t.Month()
		d, _ = strconv.Atoi(day)
		if year != "" {
			y, _ = strconv.Atoi(year)
		}
	}
	t := time.Date(y, mo, d, h, mi, 0, 0, loc)
	if month == "" && t.Before(local) {
		t = t.AddDate(0, 0, 1) // a clock time already past today is tomorrow's
	} else if month != "" && year == "" && t.Before(local.AddDate(0, 0, -1)) {
		t = t.AddDate(1, 0, 0) // "Jan 2" seen on Dec 31
	}
	return t
}

var (
	resetIn = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:reset|retrying|try again) in ((?:\d+\s*(?:days?|hours?|minutes?|seconds?|[dhms])\b\s*)+)`)
	})
	resetAt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:resets|reset at|resets at|try again at)\s+` +
			`(?:([A-Z][a-z]{2,8})\s+(\d{1,2})(?:st|nd|rd|th)?,?\s*(?:(\d{4})\s*)?(?:at\s+)?)?` +
			`(\d{1,2})(?::(\d{2}))?\s*([ap]m)\b(?:\s*\(([A-Za-z_]+/[A-Za-z_/+-]+|UTC)\))?`)
	})
	durationPart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\d+)\s*(days?|hours?|minutes?|seconds?|[dhms])\b`)
	})
)

// spokenDuration reads "2 hours 5 minutes", "1 day", "5s".
func spokenDuration(s string) time.Duration {
	var d time.Duration
	for _, m := range durationPart().FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		switch strings.ToLower(m[2])[0] {
		case 'd':
			d += time.Duration(n) * 24 * time.Hour
		case 'h':
			d += time.Duration(n) * time.Hour
		case 'm':
			d += time.Duration(n) * time.Minute
		case 's':
			d += time.Duration(n) * time.Second
		}
	}
	return d
}

func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "■✕⎿ "))
}
