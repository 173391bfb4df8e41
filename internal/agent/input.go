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
	rows := screenRows(screen)
	if len(rows) > liveLines {
		rows = rows[len(rows)-liveLines:]
	}
	at := lowestRow(inputPrompt(), strings.Join(rows, "\n"))
	if at < 0 {
		return "", false
	}
	first := promptLead().ReplaceAllString(rows[at], "")
	lines := []string{strings.Trim(first, inputTrim)}
	for _, row := range rows[at+1:] {
		t := strings.Trim(row, inputTrim)
		if t == "" || boxRule().MatchString(row) || c.statusBar != nil && c.statusBar.MatchString(row) ||
			inputPrompt().MatchString(row) {
			break
		}
		lines = append(lines, t)
	}
	text = strings.TrimSpace(strings.Join(lines, "\n"))
	if c.placeholder != nil && c.placeholder.MatchString(text) {
		return "", true
	}
	return text, true
}
