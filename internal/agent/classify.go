package agent

import (
	"fmt"
	"regexp"
	"strings"
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
type Classifier struct {
	working, waiting, idle, statusBar *regexp.Regexp
}

// NewClassifier compiles a profile's screen patterns.
func NewClassifier(p Profile) (*Classifier, error) {
	c := &Classifier{}
	for _, f := range []struct {
		key     string
		pattern string
		re      **regexp.Regexp
	}{
		{"working", p.Working, &c.working}, {"waiting", p.Waiting, &c.waiting},
		{"idle", p.Idle, &c.idle}, {"status_bar", p.StatusBar, &c.statusBar},
	} {
		re, err := CompilePattern(f.pattern)
		if err != nil {
			return nil, fmt.Errorf("tools.%s.%s: invalid regex: %w", p.Name, f.key, err)
		}
		*f.re = re
	}
	return c, nil
}

// Classify reads a pane capture. Patterns are tried in the order of the
// package documentation: a question on screen (waiting) beats a busy
// indicator (working), which beats the input prompt (idle), because most
// tools keep their input box on screen while they work. The tool's
// status-bar lines are left out when looking for waiting and working.
func (c *Classifier) Classify(screen string) Class {
	lines := screenRows(screen)
	if len(lines) > liveLines {
		lines = lines[len(lines)-liveLines:]
	}
	body := lines
	if c.statusBar != nil {
		body = make([]string, 0, len(lines))
		for _, l := range lines {
			if !c.statusBar.MatchString(l) {
				body = append(body, l)
			}
		}
	}
	bodyText := strings.Join(body, "\n")
	switch {
	case c.waiting != nil && c.waiting.MatchString(bodyText):
		return ClassWaiting
	case c.working != nil && c.working.MatchString(bodyText):
		return ClassWorking
	case c.idle != nil && c.idle.MatchString(strings.Join(lines, "\n")):
		return ClassIdle
	}
	return ClassUnknown
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9:;<=>?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]`)

// screenRows turns a capture into its rows as a pattern sees them: escape
// sequences and carriage returns removed, trailing blank rows dropped.
// Trailing spaces stay, so a pattern like '^> $' matches an empty prompt.
func screenRows(screen string) []string {
	screen = ansiRE.ReplaceAllString(screen, "")
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
