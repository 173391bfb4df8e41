package agent

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// LiveLimit reads a usage limit shown in the live part of a screen (the
// bottom rows): Gemini CLI's quota dialog and OpenCode's retry line. A
// limit a tool prints into its transcript (Claude Code, Codex) ends a
// turn instead, and is read from that turn's failure mark (agent.LimitOf).
func LiveLimit(screen string, now time.Time) (state.Limit, bool) {
	if !strings.Contains(screen, "imit reached") && !strings.Contains(screen, "Too Many Requests") &&
		!strings.Contains(screen, "ate limit") {
		return state.Limit{}, false // the common case, without the row work
	}
	rows := screenRows(screen)
	if len(rows) > liveLines {
		rows = rows[len(rows)-liveLines:]
	}
	for i := len(rows) - 1; i >= 0; i-- {
		row := strings.Trim(rows[i], " \t│┃|")
		switch {
		case liveGemini().MatchString(row):
			l := state.Limit{Text: untrusted.From(strings.TrimSpace(row))}
			// "Access resets at …" is the dialog's next row.
			for _, next := range rows[i+1 : min(len(rows), i+3)] {
				if t := ResetOf(next, now); !t.IsZero() {
					l.Reset = t
					break
				}
			}
			return l, true
		case liveOpenCode().MatchString(row):
			m := liveOpenCode().FindStringSubmatch(row)
			return state.Limit{Text: untrusted.From(strings.TrimSpace(m[1])), Reset: ResetOf(row, now)}, true
		}
	}
	return state.Limit{}, false
}

var (
	liveGemini   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*Usage limit reached for \S+\.\s*$`) })
	liveOpenCode = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:too many requests|rate limit[^\[]*|[^\[]*usage limit reached[^\[]*?))\s*\[retrying (?:in [^\]]*?)?attempt #\d+\]`)
	})
)
