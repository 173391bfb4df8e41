package agent

import (
	"regexp"
	"strings"
)

// Choice is one numbered choice of a dialog: the key that picks it (its
// number) and its words.
type Choice struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// choiceRow is a dialog's numbered row once its frame and selection mark
// are trimmed: "1. Yes", "2) Always".
var choiceRow = regexp.MustCompile(`^([1-9])[.)]\s+(\S.*)$`)

// rowTrim are the frame and selection marks around a dialog's rows.
const rowTrim = " \t│┃|❯›>●○◯▸▶→*"

// Choices are the numbered choices of a waiting screen's dialog
// (WaitingBlock's rows "1. Yes", "2. No" …), in order: keys 1, 2, 3 …
// with none missing. nil when the dialog has none (a question to type
// an answer to, a y/n line).
func Choices(block string) []Choice {
	var out []Choice
	for _, row := range strings.Split(block, "\n") {
		m := choiceRow.FindStringSubmatch(strings.Trim(row, rowTrim))
		if m == nil {
			continue
		}
		if want := string(rune('1' + len(out))); m[1] != want {
			if m[1] == "1" {
				out = out[:0] // a new list starts: the dialog's own is the last
			} else {
				continue
			}
		}
		out = append(out, Choice{Key: m[1], Label: strings.TrimSpace(m[2])})
	}
	if len(out) < 2 {
		return nil
	}
	return out
}
