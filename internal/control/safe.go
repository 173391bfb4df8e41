package control

import (
	"strings"

	"github.com/owt-tmux/owt/internal/workspace"
)

// Plain is text from elsewhere (an agent's summary, a task, a file name)
// made safe to draw on one line: workspace.CleanText drops its control
// characters (so an escape sequence's ESC goes and the rest is inert
// text), and line breaks and tabs become spaces, so it can neither move
// the cursor nor restyle the screen.
func Plain(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, workspace.CleanText(s))
}

// plainRows makes every text field of the rows safe to draw.
func plainRows(rows []Row) {
	for i := range rows {
		r := &rows[i]
		for _, f := range []*string{&r.Name, &r.Repo, &r.Status, &r.Why, &r.Task, &r.Run, &r.TaskID, &r.TaskState,
			&r.Sending, &r.Prediction, &r.Checks, &r.PR, &r.Event} {
			*f = Plain(*f)
		}
	}
}
