package control

import "strings"

// Plain is text from elsewhere (an agent's summary, a task, a file name)
// made safe to draw on one line: control characters, escape sequences
// included, are dropped and line breaks and tabs become spaces, so it can
// neither move the cursor nor restyle the screen.
func Plain(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case isControl(r):
			return -1
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0
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
