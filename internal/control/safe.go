package control

import "github.com/owt-tmux/owt/internal/untrusted"

// plainRows makes every text field of the rows safe to draw.
func plainRows(rows []Row) {
	for i := range rows {
		r := &rows[i]
		for _, f := range []*string{&r.Name, &r.Repo, &r.Status, &r.Why, &r.Task, &r.Run, &r.TaskID, &r.TaskState,
			&r.Sending, &r.Prediction, &r.Checks, &r.PR, &r.Event, &r.Usage, &r.Limits} {
			*f = untrusted.CleanLine(*f)
		}
	}
}
