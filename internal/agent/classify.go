package agent

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Class is what a pane's screen says about its agent.
type Class string

// Screen classes. Unknown means no pattern matched: a start-up screen, a
// shell, a tool owt has no patterns for.
const (
	ClassUnknown Class = ""
	ClassWorking Class = "working"
	ClassWaiting Class = "waiting"
	ClassIdle    Class = "idle"
)

// liveLines is how much of the bottom of the screen is read. A TUI's live
// part (spinner, permission menu, input box, footer) sits at the bottom;
// text further up is transcript, where an old "Do you want to proceed?"
// must not count.
const liveLines = 30

// Classifier tells working, waiting and idle apart on one tool's screen.
//
// Its patterns are matched row by row (every pattern is compiled
// multi-line; owt's own never span rows, and a [tools.X] one that can is
// matched on the whole text instead), and what each row matched is
// remembered: a busy agent's screen changes a row or two a second (the
// spinner, its timer), so a screen read again costs the regexes of its
// new rows only. Safe for concurrent use.
type Classifier struct {
	tool                              string
	working, waiting, idle, statusBar *regexp.Regexp
	placeholder                       *regexp.Regexp // the empty input box's hint (InputText)

	// spans are the tool's patterns that can match across rows (a
	// [tools.X] pattern with \n, \s or (?s)): those are matched on the
	// whole text, as before rows were remembered.
	spans rowFlags

	// digitBlind is set when no pattern tells one ASCII digit from
	// another (each reads digits only through \d or classes holding
	// all ten or none): rows are then remembered with their digits
	// zeroed, so a spinner row whose timer and token count change every
	// second is matched once, not once a second per busy agent.
	digitBlind bool

	mu   sync.Mutex
	rows map[string]rowFlags
}

// rowFlags are the patterns one row matches.
type rowFlags uint8

const (
	rowStatusBar rowFlags = 1 << iota
	rowToolWait
	rowAnyWait
	rowViewer
	rowWork
	rowTurnEnded
	rowIdle
)

// rowCacheMax bounds the rows a classifier remembers: about ten screens
// of every agent of a tool, a few hundred KiB at most.
const rowCacheMax = 4096

// flagsOf is what row matches, remembered.
func (c *Classifier) flagsOf(row string) rowFlags {
	if c.digitBlind {
		row = zeroDigits(row) // the same matches: see digitBlind
	}
	c.mu.Lock()
	f, ok := c.rows[row]
	c.mu.Unlock()
	if ok {
		return f
	}
	for _, p := range []struct {
		re  *regexp.Regexp
		bit rowFlags
	}{
		{c.statusBar, rowStatusBar}, {c.waiting, rowToolWait}, {genericWaiting(), rowAnyWait}, {viewer(), rowViewer},
		{c.working, rowWork}, {turnEnded(), rowTurnEnded}, {c.idle, rowIdle},
	} {
		if p.re != nil && p.re.MatchString(row) {
			f |= p.bit
		}
	}
	c.mu.Lock()
	if c.rows == nil || len(c.rows) >= rowCacheMax {
		c.rows = make(map[string]rowFlags, 256)
	}
	c.rows[row] = f
	c.mu.Unlock()
	return f
}

// NewClassifier compiles a profile's screen patterns.
func NewClassifier(p Profile) (*Classifier, error) {
	c := &Classifier{tool: p.Name}
	for _, f := range []struct {
		key     string
		pattern string
		re      **regexp.Regexp
	}{
		{"working", p.Working, &c.working}, {"waiting", p.Waiting, &c.waiting},
		{"idle", p.Idle, &c.idle}, {"status_bar", p.StatusBar, &c.statusBar},
		{"placeholder", p.Placeholder, &c.placeholder},
	} {
		re, err := CompilePattern(f.pattern)
		if err != nil {
			return nil, fmt.Errorf("tools.%s.%s: invalid regex: %w", p.Name, f.key, err)
		}
		*f.re = re
	}
	for _, f := range []struct {
		pattern string
		bit     rowFlags
	}{{p.Working, rowWork}, {p.Waiting, rowToolWait}, {p.Idle, rowIdle}} {
		if canSpanRows(f.pattern) {
			c.spans |= f.bit
		}
	}
	c.digitBlind = true
	for _, re := range []*regexp.Regexp{c.statusBar, c.waiting, genericWaiting(), viewer(), c.working, turnEnded(), c.idle} {
		if re != nil && !blindToDigits(re.String()) {
			c.digitBlind = false
		}
	}
	return c, nil
}

// zeroDigits is row with every ASCII digit a 0.
func zeroDigits(row string) string {
	if strings.IndexAny(row, "123456789") < 0 {
		return row
	}
	b := []byte(row)
	for i, c := range b {
		if '1' <= c && c <= '9' {
			b[i] = '0'
		}
	}
	return string(b)
}

// canSpanRows reports whether pattern can match a newline: a literal
// \n, a class holding it (\s, [^x]), or . with (?s).
func canSpanRows(pattern string) bool {
	found, ok := someNode(pattern, func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpAnyChar:
			return true
		case syntax.OpLiteral:
			return slices.Contains(r.Rune, '\n')
		case syntax.OpCharClass:
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if r.Rune[i] <= '\n' && '\n' <= r.Rune[i+1] {
					return true
				}
			}
		}
		return false
	})
	return ok && found
}

// blindToDigits reports whether pattern matches a text exactly where it
// matches the text with every ASCII digit made another: no literal digit,
// and every class holds all ten digits or none (\d, \w, \S, [^a-z]).
func blindToDigits(pattern string) bool {
	found, ok := someNode(pattern, func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpLiteral:
			return slices.ContainsFunc(r.Rune, func(c rune) bool { return '0' <= c && c <= '9' })
		case syntax.OpCharClass:
			digits := 0
			for i := 0; i+1 < len(r.Rune); i += 2 {
				lo, hi := max(r.Rune[i], '0'), min(r.Rune[i+1], '9')
				if lo <= hi {
					digits += int(hi-lo) + 1
				}
			}
			return digits != 0 && digits != 10
		}
		return false
	})
	return ok && !found
}

// someNode reports whether a node of pattern's syntax tree is one is
// says; ok is false when pattern does not parse.
func someNode(pattern string, is func(*syntax.Regexp) bool) (found, ok bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false, false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		return is(r) || slices.ContainsFunc(r.Sub, walk)
	}
	return walk(re), true
}

// genericWaiting is what every tool's screen shows when it waits for a
// decision, whether owt has a profile for the tool or not: a numbered
// selection menu with a cursor on an entry, and the key hints under
// dialogs ("Enter to confirm · Esc to cancel", "Press enter to continue",
// "(Use Enter to select)", "[y/N]"). A spinner's "(esc to cancel, 3s)"
// is not a dialog hint: it carries a timer.
var genericWaiting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?mi)` +
		`^[ \t]*(?:[│┃|][ \t]*)?[❯›>●▶→][ \t]*\d+\.[ \t]+\S` +
		`|\b(?:press )?enter to (?:confirm|continue|select|save|submit)\b` +
		`|\(use enter to select\)` +
		`|^[ \t]*(?:press )?esc to (?:cancel|go back)[ \t]*$` +
		`|\benter (?:continue|confirm|details)[ \t]*·[ \t]*esc\b|·[ \t]*esc (?:close|dismiss)\b` +
		`|^[^\n]*\b(?:code|key|token|password)\b[^\n]*:[ \t]*$` +
		`|\[y/n\]|\(y/n\)`)
})

// turnEnded marks a turn the user stopped. A busy indicator above it is
// what is left of that turn on screen, not a turn in progress. Claude Code
// 2.1 says "⎿  Interrupted · What should Claude do instead?" (older ones
// "Interrupted by user"), Codex "■ Conversation interrupted", Gemini CLI
// "ℹ Request cancelled." (or, from its own cancel handler, "ℹ User
// cancelled the request."), OpenCode ends the turn's footer with
// "· interrupted" (in a wide window its sidebar shares that row: "▣  Build
// · Claude Sonnet 4.5 · interrupted      $0.00 spent").
var turnEnded = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)Interrupted by user|Interrupted · What should|Request cancelled\.|User cancelled the request\.|Conversation interrupted|Login interrupted|^[ \t]*▣[^\n]*· interrupted(?:[ \t]*$|[ \t]{2,})`)
})

// unfinishedFooter is OpenCode's footer of an answer that never completed
// ("▣  Build · Big Pickle", without the "· 2.3s" a finished one gets): a
// turn stopped while it was still retrying leaves only that.
var unfinishedFooter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*▣[ \t]+[^·\n]+·[^·\n]+$`) })

// anyFooter is any OpenCode answer footer, finished or not.
var anyFooter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*▣[ \t]+\S`) })

// turnFailed marks a turn an error ended, and says which: Gemini CLI's
// "✕ [API Error: Content generator not initialized]", Codex's error
// events ("■ unexpected status 401 Unauthorized: …", "■ stream
// disconnected before completion: …") — "■ " and text, where its busy
// bar is "■■⬝⬝⬝" and its stopped turn "■ Conversation interrupted"
// (turnEnded, left out in Marks) — and Claude Code's usage limit
// ("⎿  You've hit your 5-hour limit · resets 3pm"), which its StopFailure
// hook reports too.
var turnFailed = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?:✕[ \t]*\[API Error: ([^\]\n]*)|■ ([^■⬝\s][^\n]*)|⎿[ \t]+((?:You've hit your|You're out of usage credits)[^\n]*))`)
})

// viewer is an overlay the user opened to read something (Codex's F2
// warnings): it hides the agent's screen and says nothing about the
// agent, so it is no question to the user.
var viewer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*Warnings · \d+ of \d+|\bk keep & next · esc dismiss`)
})

// booting is a tool busy with itself, not with a task: Codex waiting for
// its shared background server ("◦ Reconnecting to server… (1s)",
// "Waiting for startup · esc cancel").
var booting = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)Reconnecting to server|Waiting for startup`) })

// Booting reports whether the bottom of the screen shows the tool busy
// with itself (see booting). A working screen that is booting shows no
// turn running: callers check class == ClassWorking && !Booting(screen).
func Booting(screen string) bool {
	// The pattern's words are plain text: a plain screen without them
	// (every tool's but Codex's, nearly always) skips the row work.
	if !hasEscapes(screen) &&
		!strings.Contains(screen, "Reconnecting to server") && !strings.Contains(screen, "Waiting for startup") {
		return false
	}
	lines := screenRows(screen)
	if len(lines) > liveLines {
		lines = lines[len(lines)-liveLines:]
	}
	return booting().MatchString(strings.Join(lines, "\n"))
}

// TurnMarks counts the marks of ended turns on a screen. A mark that was
// not on the screen before the agent turned idle tells how its turn ended.
type TurnMarks struct {
	Interrupts, Failures int
	// Unfinished: the lowest answer footer is of an answer that never
	// completed (OpenCode).
	Unfinished bool
	// Failure is the text of the lowest failure mark.
	Failure string
}

// Marks reads the marks of ended turns on the whole screen.
func Marks(screen string) TurnMarks {
	text := strings.Join(screenRows(screen), "\n")
	m := TurnMarks{
		Interrupts: len(turnEnded().FindAllStringIndex(text, -1)),
	}
	if row := lowestRow(unfinishedFooter(), text); row >= 0 {
		m.Unfinished = row == lowestRow(anyFooter(), text)
	}
	for _, f := range turnFailed().FindAllStringSubmatch(text, -1) {
		why := strings.TrimSpace(f[1] + f[2] + f[3])
		if strings.HasPrefix(why, "Conversation interrupted") {
			continue
		}
		m.Failures++
		m.Failure = why
	}
	return m
}

// InterruptRow is the lowest row of the screen that marks a stopped turn
// ("⎿  Interrupted · What should Claude do instead?"), trimmed, or "".
func InterruptRow(screen string) string {
	rows := screenRows(screen)
	row := lowestRow(turnEnded(), strings.Join(rows, "\n"))
	if row < 0 {
		return ""
	}
	return strings.TrimSpace(rows[row])
}

// TurnEnd says how the turn ended that left the screen after, idle now,
// when before was the screen while it ran: "interrupted" when a new mark
// of a stopped turn showed up (or the last answer never completed), the
// error when a new failure mark did, else "" (it finished).
func TurnEnd(before, after TurnMarks) (interrupted bool, failure string) {
	if after.Failures > before.Failures {
		return false, after.Failure
	}
	return after.Interrupts > before.Interrupts || after.Unfinished, ""
}

// Classify reads a pane capture and says what the agent is doing.
//
// The live part of a TUI is its bottom, and what a person reads there is
// what counts: of the markers on screen (a question or dialog, a busy
// indicator, the input prompt) the lowest one wins, so a dialog answered
// long ago that is still visible higher up does not outrank the empty
// input box under it. The one exception: most tools keep their input box
// on screen while they work, so a busy indicator above the input prompt
// still means working. The tool's status-bar lines are left out when
// looking for waiting and working.
func (c *Classifier) Classify(screen string) Class {
	class, _ := c.Read(screen)
	return class
}

// Read is Classify, and for a waiting screen what it waits for (see
// WaitReason).
func (c *Classifier) Read(screen string) (Class, string) {
	r := c.read(screen, false)
	return r.Class, r.Reason
}

// Reading is a classification with its evidence: the rule that decided
// it and the screen rows that rule matched (the agent's words: callers
// keep them as untrusted text).
type Reading struct {
	Class Class
	// Reason is what a waiting screen waits for (WaitReason).
	Reason string
	// Rule names the rule that decided, as "TOOL/KIND" ("claude/permission",
	// "generic/permission" for the menus and key hints of every tool,
	// "codex/busy", "gemini/prompt"); "" for ClassUnknown.
	Rule string
	// RuleText says the rule in words: "waiting: permission prompt (claude)".
	RuleText string
	// Lines are the rows the rule matched, top down, at most maxEvidence.
	Lines []string
}

// maxEvidence bounds the rows a Reading keeps.
const maxEvidence = 4

// Explain is Read with its evidence: which rule decided and the rows it
// matched.
func (c *Classifier) Explain(screen string) Reading { return c.read(screen, true) }

func (c *Classifier) read(screen string, explain bool) Reading {
	lines := screenRows(screen)
	if len(lines) > liveLines {
		lines = lines[len(lines)-liveLines:]
	}
	// body is the screen with the tool's status-bar rows blanked (row
	// numbers hold): waiting and working are looked for there; idle on
	// the whole screen.
	body := lines
	all := make([]rowFlags, len(lines))
	bodyFlags := make([]rowFlags, len(lines))
	blank := rowFlags(0)
	if c.statusBar != nil {
		body = make([]string, len(lines))
		blank = c.flagsOf("")
	}
	for i, l := range lines {
		all[i] = c.flagsOf(l)
		bodyFlags[i] = all[i]
		if c.statusBar != nil {
			if all[i]&rowStatusBar != 0 {
				bodyFlags[i] = blank
			} else {
				body[i] = l
			}
		}
	}
	lowest := func(rows []rowFlags, bit rowFlags) int {
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i]&bit != 0 {
				return i
			}
		}
		return -1
	}
	toolWait, anyWait := lowest(bodyFlags, rowToolWait), lowest(bodyFlags, rowAnyWait)
	if c.spans != 0 {
		bodyText := strings.Join(body, "\n")
		if c.spans&rowToolWait != 0 {
			toolWait = lowestRow(c.waiting, bodyText)
		}
		if c.spans&rowWork != 0 {
			for i := range bodyFlags {
				bodyFlags[i] &^= rowWork
			}
			if row := lowestRow(c.working, bodyText); row >= 0 {
				bodyFlags[row] |= rowWork
			}
		}
		if c.spans&rowIdle != 0 {
			for i := range all {
				all[i] &^= rowIdle
			}
			if row := lowestRow(c.idle, strings.Join(lines, "\n")); row >= 0 {
				all[row] |= rowIdle
			}
		}
	}
	wait := max(toolWait, anyWait)
	if v := lowest(bodyFlags, rowViewer); wait >= 0 && v >= 0 && v >= wait-waitContext {
		return Reading{} // an overlay the user opened covers the agent
	}
	work := lowest(bodyFlags, rowWork)
	if work >= 0 && lowest(bodyFlags, rowTurnEnded) > work {
		work = -1
	}
	idle := lowest(all, rowIdle)
	// A busy indicator counts only at the bottom, or just above the input
	// prompt (most tools keep the box on screen while they work): higher
	// up it is transcript text.
	if work >= 0 && idle > work+spinnerReach {
		work = -1
	}
	var r Reading
	switch {
	// A question on the input row itself is the user's draft ("ask [y/N]
	// first"), not a dialog: the prompt wins a tie.
	case wait >= 0 && wait >= work && wait > idle:
		from := max(0, wait-waitContext)
		r = Reading{Class: ClassWaiting, Reason: WaitReason(lines[from:])}
		if explain {
			// The tool's own words in the dialog name it, even when a
			// generic key hint sits below them.
			re, owner, who := c.waiting, c.tool, c.tool
			if toolWait < from {
				re, owner, who = genericWaiting(), "generic", "any tool"
			}
			r.Rule = owner + "/" + reasonSlug(r.Reason)
			r.RuleText = "waiting: " + reasonWords(r.Reason) + " (" + who + ")"
			r.Lines = matchedRows(re, body, from, wait)
		}
	case work >= 0 && work > wait:
		r = Reading{Class: ClassWorking}
		if explain {
			r.Rule, r.RuleText = c.tool+"/busy", "working: busy indicator ("+c.tool+")"
			r.Lines = []string{strings.TrimSpace(lines[work])}
		}
	case idle >= 0:
		r = Reading{Class: ClassIdle}
		if explain {
			r.Rule, r.RuleText = c.tool+"/prompt", "idle: input prompt ("+c.tool+")"
			r.Lines = []string{strings.TrimSpace(lines[idle])}
		}
	}
	return r
}

// reasonSlug is a wait reason as a rule's kind: "permission", "trust",
// "login", "api-key".
func reasonSlug(reason string) string {
	return strings.ReplaceAll(strings.ToLower(reason), " ", "-")
}

// reasonWords is a wait reason as a rule says it.
func reasonWords(reason string) string {
	switch reason {
	case WaitTrust:
		return "trust dialog"
	case WaitHooks:
		return "hooks review"
	case WaitLogin:
		return "sign-in"
	case WaitAPIKey:
		return "API key prompt"
	}
	return "permission prompt"
}

// matchedRows are the rows from..to of lines on which a match of re
// starts, top down, trimmed, at most maxEvidence (the lowest kept).
func matchedRows(re *regexp.Regexp, lines []string, from, to int) []string {
	if re == nil || from > to || to >= len(lines) {
		return nil
	}
	block := strings.Join(lines[from:to+1], "\n")
	var out []string
	last := -1
	for _, loc := range re.FindAllStringIndex(block, -1) {
		row := strings.Count(block[:loc[0]], "\n")
		if loc[1] > loc[0] && block[loc[0]] == '\n' {
			row++ // a match that starts at a line break is the next row's
		}
		if row == last || row > to-from {
			continue
		}
		last = row
		if l := strings.TrimSpace(lines[from+row]); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > maxEvidence {
		out = out[len(out)-maxEvidence:]
	}
	return out
}

// spinnerReach is how far above the lowest input-prompt marker a busy
// indicator may sit and still be the live one (spinner, blank line, the
// box's border, the prompt, the box's border, a footer).
const spinnerReach = 8

// WaitingBlock is the dialog a waiting screen shows: its rows from
// waitContext above the lowest waiting marker down to that marker, or ""
// when the screen does not wait. Two screens with different blocks show
// different dialogs.
func (c *Classifier) WaitingBlock(screen string) string {
	lines := screenRows(screen)
	if len(lines) > liveLines {
		lines = lines[len(lines)-liveLines:]
	}
	class, _ := c.Read(screen)
	if class != ClassWaiting {
		return ""
	}
	text := strings.Join(lines, "\n")
	wait := max(lowestRow(c.waiting, text), lowestRow(genericWaiting(), text))
	if wait < 0 {
		return ""
	}
	return strings.Join(lines[max(0, wait-waitContext):wait+1], "\n")
}

// waitContext is how many rows above the lowest waiting marker are read
// for what the dialog is about: its title and question sit above its
// choices and key hints.
const waitContext = 15

// lowestRow is the row of the last match of re in text, or -1.
func lowestRow(re *regexp.Regexp, text string) int {
	if re == nil {
		return -1
	}
	locs := re.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return -1
	}
	last := locs[len(locs)-1]
	end := last[1]
	if end > last[0] {
		end-- // a match ending in a newline belongs to the row before it
	}
	return strings.Count(text[:end], "\n")
}

// waitRule is a wait reason and the words that show it.
type waitRule struct {
	reason string
	re     *regexp.Regexp
}

var waitReasons = sync.OnceValue(func() []waitRule {
	return []waitRule{
		// Codex's "Hooks need review" asks to trust hook commands, not a
		// folder. First: WaitReason takes it wherever it shows.
		{WaitHooks, regexp.MustCompile(`(?i)hooks? need review`)},
		{WaitTrust, regexp.MustCompile(`(?i)trust (?:this|the files in this|the) folder|quick safety check|do you trust|trust this project|folder access`)},
		// An API key asked for now ("Paste or type your API key", "Enter
		// Gemini API Key", "use this API key?") beats a sign-in menu that
		// merely offers one.
		{WaitAPIKey, regexp.MustCompile(`(?i)(?:enter|paste|type|use this)[^\n]*api key|api key[^\n]*(?:below|here)`)},
		// The tools' own sign-in words, not any "login" (a permission prompt
		// for "gh auth login" is a permission).
		{WaitLogin, regexp.MustCompile(`(?i)not logged in|login method|/login\b|\bsign(?:ing)? in (?:with|via|another|to)\b|finish signing in|how would you like to authenticate|authori[sz]ation code|paste (?:the )?code here`)},
	}
})

// WaitReason says what a waiting screen waits for: hooks to be reviewed
// (Codex), the folder to be trusted, a login, an API key, or else a
// permission or an answer.
//
// The dialog drawn last is the lowest: when the words of two reasons are
// on screen (a trust dialog's words still above the API-key box Gemini CLI
// draws once the folder is trusted), the one matched lowest wins, and on
// one row the earlier rule. Codex's hooks review wins wherever it shows:
// its list of hook commands below the title can hold any words.
func WaitReason(lines []string) string {
	text := strings.Join(lines, "\n")
	reason, row := WaitPermission, -1
	for i, r := range waitReasons() {
		at := lowestRow(r.re, text)
		if at < 0 {
			continue
		}
		if i == 0 {
			return r.reason
		}
		if at > row {
			reason, row = r.reason, at
		}
	}
	return reason
}

// StripEscapes removes terminal escape sequences (colours, cursor moves,
// titles, DCS strings) from s, keeping the text between them.
func StripEscapes(s string) string { return ReplaceEscapes(s, "") }

// ReplaceEscapes replaces each terminal escape sequence in s with repl.
func ReplaceEscapes(s, repl string) string {
	// Every sequence starts with ESC or a C1 CSI/OSC: most captures (read
	// without -e) hold none, and skip the pattern.
	if !hasEscapes(s) {
		return s
	}
	return ansiRE().ReplaceAllString(s, repl)
}

// hasEscapes reports whether s may hold an escape sequence: every one
// starts with ESC or a C1 CSI or OSC.
// (Three searches for one byte or one pair, each vectorised: ContainsAny
// with non-ASCII runes decodes the screen rune by rune, and the monitor
// asks this of every screen it reads.)
func hasEscapes(s string) bool {
	return strings.IndexByte(s, 0x1b) >= 0 || strings.Contains(s, "\u009b") || strings.Contains(s, "\u009d")
}

// ansiRE is a terminal escape sequence, whole: CSI (colours, "\x1b[2J"),
// OSC (a title, "\x1b]0;pwn\a", to its end when unterminated), DCS and
// its kin, and the two-byte ones, in their 7-bit and C1 forms.
var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]?|(?:\x1b\]|\x{9d})[^\x07\x1b\x{9c}]*(?:\x07|\x1b\\|\x{9c})?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?`)
})

// screenRows turns a capture into its rows as a pattern sees them: escape
// sequences and carriage returns removed, trailing blank rows dropped.
// Trailing spaces stay, so a pattern like '^> $' matches an empty prompt.
func screenRows(screen string) []string {
	screen = StripEscapes(screen)
	screen = strings.ReplaceAll(screen, "\r", "")
	lines := strings.Split(screen, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// ScreenLines turns a capture into lines to show a person: as screenRows,
// with trailing spaces removed.
func ScreenLines(screen string) []string {
	lines := screenRows(screen)
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\u00a0")
	}
	return lines
}

// inputPrompt is an input prompt row of any tool (see promptLine).
var inputPrompt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)` + promptLine) })

// echoLead is what the tools put before a message the user sent: box
// borders, prompt characters, bullets.
const echoLead = " \t\u00a0│┃|▌>❯›→•"

// echoLen is how much of the task's first line has to show: a long line
// wraps, so its start is what every screen shows whole.
const echoLen = 30

// TaskEchoed reports whether the screen shows task as a message the tool
// took: the start of its first line opens a transcript row above the
// input prompt (the tools echo what they were sent). A task still in the
// input box, not sent, is on the input row itself and does not count.
func (c *Classifier) TaskEchoed(screen, task string) bool {
	want := echoStart(task)
	if want == "" {
		return false
	}
	rows := screenRows(screen)
	text := strings.Join(rows, "\n")
	input := lowestRow(inputPrompt(), text)
	if input < 0 {
		input = lowestRow(c.idle, text)
	}
	for _, row := range rows[:max(input, 0)] {
		if strings.HasPrefix(strings.TrimLeft(row, echoLead), want) {
			return true
		}
	}
	return false
}

// echoStart is the start of the first line of task with text, as a tool
// echoes it.
func echoStart(task string) string {
	for _, line := range strings.Split(task, "\n") {
		line = strings.TrimRight(strings.TrimLeft(line, echoLead), " \t")
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > echoLen {
			line = strings.TrimRight(string(r[:echoLen]), " \t")
		}
		return line
	}
	return ""
}
