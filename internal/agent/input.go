package agent

import (
	"regexp"
	"strings"
	"sync"
)

// promptLead is the start of an input prompt row up to its prompt
// character (see promptLine).
var promptLead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*(?:[│┃|][ \t]*)?[>❯›]`)
})

// boxRule is a row that is only a box's border or a rule: where the
// input box ends.
var boxRule = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t\x{a0}─━═╭╮╰╯┌┐└┘│┃|]*$`)
})

// borderHead is a row that starts with a box's bottom border or a rule
// (eight cells of it at least: a draft's line may start with a dash or
// two): the box ends there, whatever a capture (-J) joined after it. Output
// written over a tool's screen (a stray line from another process) can
// leave the border's row marked wrapped, and then the footer under the
// box reads as a row of it.
var borderHead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t\x{a0}]*[╰└]?[─━═]{8,}`)
})

// inputTrim is what surrounds the text of an input row: spaces, the
// no-break space Claude Code puts after its prompt, box borders.
const inputTrim = " \t\u00a0│┃|"

// InputText reads what the agent's input box holds on screen: the text
// after the prompt character of the lowest input prompt row, with the
// rows below it that continue it (a long or multi-line input), one line
// each. An empty box, or one showing only the tool's placeholder, is "".
// ok is false when the screen shows no input prompt owt can read (a
// dialog, a tool whose box has no prompt character): then nothing is
// known about the box.
func (c *Classifier) InputText(screen string) (text string, ok bool) {
	text, hint, ok := c.InputBox(screen)
	if hint {
		return "", ok
	}
	return text, ok
}

// InputBox is InputText that also gives the text of a box that reads as
// the tool's placeholder, with hint true: a draft can read like one.
func (c *Classifier) InputBox(screen string) (text string, hint, ok bool) {
	rows := screenRows(screen)
	if len(rows) > liveLines {
		rows = rows[len(rows)-liveLines:]
	}
	joined := strings.Join(rows, "\n")
	at := lowestRow(inputPrompt(), joined)
	if at < 0 {
		return "", false, false
	}
	switch class, _ := c.Read(screen); class {
	case ClassIdle:
	case ClassWorking:
		// Only a box under the busy indicator is the input: a tool that
		// hides its box while it works shows the prompt it took above
		// its spinner, and that row is transcript.
		if c.working == nil || !busyAbove(c.working, rows, at) {
			return "", false, false
		}
	default:
		return "", false, false // a dialog, or a screen owt cannot read
	}
	first := promptLead().ReplaceAllString(rows[at], "")
	lines := []string{strings.Trim(first, inputTrim)}
	end := at + 1
	for ; end < len(rows); end++ {
		row := rows[end]
		t := strings.Trim(row, inputTrim)
		if t == "" || boxRule().MatchString(row) || borderHead().MatchString(row) || c.statusBar != nil && c.statusBar.MatchString(row) ||
			inputPrompt().MatchString(row) {
			break
		}
		lines = append(lines, t)
	}
	// Under the box there are only its border and the tool's footer; more
	// text, or another box's borders (a box drawn without its prompt row
	// for a moment), means the row read was the transcript's.
	below, borders := 0, 0
	for i, row := range rows[end:] {
		switch {
		case joinedPrompt().MatchString(row):
			borders++ // a box's rows joined into one (see joinedPrompt)
		case isBorder(row):
			if i > 0 {
				borders++ // not the bottom of this row's own box
			}
		case strings.Trim(row, inputTrim) != "":
			below++ // a blank row, or a box's side borders alone, trims to ""
		}
	}
	if below > footerMax || borders > 0 {
		return "", false, false
	}
	text = strings.TrimSpace(strings.Join(lines, "\n"))
	return text, c.placeholder != nil && c.placeholder.MatchString(text), true
}

// joinedPrompt is a prompt character right after a box's border or a
// rule, inside a row: the rows of an input box joined into one by a
// capture (-J) after tmux reflowed the pane (a client of another size
// came and went, and the tool's redraw left the rows marked wrapped).
var joinedPrompt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[│┃─━═╮╯┐┘][ \t\x{a0}]*[>❯›]`)
})

// isBorder reports whether row is a box's top or bottom border or a
// rule (not a blank row, nor one of a box's side borders alone).
func isBorder(row string) bool {
	return boxRule().MatchString(row) && strings.ContainsAny(row, "─━═╭╮╰╯┌┐└┘")
}

// footerMax is how many rows of text a tool shows under its input box at
// most (mode, model, folder, hints).
const footerMax = 4

// busyAbove reports whether a row above row at matches the busy pattern.
func busyAbove(working *regexp.Regexp, rows []string, at int) bool {
	for _, row := range rows[:at] {
		if working.MatchString(row) {
			return true
		}
	}
	return false
}
