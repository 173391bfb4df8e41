package run

import "time"

// View is a run as owt run status shows it (and prints with --json).
type View struct {
	Name          string     `json:"name"`
	State         RunState   `json:"state"`
	Why           string     `json:"why,omitempty"`
	Repo          string     `json:"repo"`
	Base          string     `json:"base"`
	Into          string     `json:"into,omitempty"`
	Plan          string     `json:"plan"`
	Socket        string     `json:"socket,omitempty"` // the tmux server whose monitor drives it
	MaxConcurrent int        `json:"max_concurrent"`
	Waves         [][]string `json:"waves"`
	Finished      int        `json:"finished"` // tasks done, landed or skipped
	Tasks         []TaskView `json:"tasks"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	// BudgetTokens is the plan's budget_tokens (0: none); Tokens what the
	// run's agents used, as the monitor last read it (filled by the face
	// that shows it: the model reads no usage).
	BudgetTokens int64 `json:"budget_tokens,omitempty"`
	Tokens       int64 `json:"tokens"`
}

// TaskView is one task in a View.
type TaskView struct {
	ID        string    `json:"id"`
	State     TaskState `json:"state"`
	Since     time.Time `json:"since"`
	Attempt   int       `json:"attempt"`
	Name      string    `json:"name"`
	Branch    string    `json:"branch"`
	Task      string    `json:"task"`
	DependsOn []string  `json:"depends_on"`
	NextStart time.Time `json:"next_start,omitzero"`
	Failure   *Failure  `json:"failure,omitempty"`
	Evidence  *Evidence `json:"evidence"`
	BlockedBy []string  `json:"blocked_by,omitempty"`
	Why       string    `json:"why,omitempty"`
	Owed      string    `json:"owed,omitempty"`
	PR        int       `json:"pr,omitempty"`
	PRError   string    `json:"pr_error,omitempty"`
	// Host is where the task's agent runs: "local", or a configured
	// host's name; before it starts, where the plan places it ("local",
	// the host named, or "" for a host with Labels, chosen at start).
	Host   string   `json:"host"`
	Labels []string `json:"labels,omitempty"`
}

// View returns what owt run status shows of r.
func (r *Run) View() View {
	v := View{
		Name: r.Name, State: r.State, Why: r.Why, Repo: r.Repo, Base: r.Base, Into: r.Into,
		Plan: r.Plan.File, Socket: r.Socket, MaxConcurrent: r.Plan.MaxConcurrent, Waves: r.Plan.Waves(),
		Tasks: []TaskView{}, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, BudgetTokens: r.Plan.BudgetTokens,
	}
	for _, t := range r.Tasks {
		tv := TaskView{
			ID: t.ID, State: t.State, Since: t.Since, Attempt: t.Attempt, Name: t.Name, Branch: t.Branch,
			DependsOn: []string{}, NextStart: t.NextStart, Failure: t.Failure, Evidence: t.Evidence,
			BlockedBy: t.BlockedBy, Why: t.Why, Owed: t.Owed, PR: t.PR, PRError: t.PRError,
		}
		tv.Host = "local"
		if pt, ok := r.Plan.TaskByID(t.ID); ok {
			tv.Task = pt.Task
			tv.DependsOn = append(tv.DependsOn, pt.DependsOn...)
			if host, labels := r.Plan.PlaceOf(pt); host != "" || len(labels) > 0 {
				tv.Host, tv.Labels = host, labels
			}
		}
		if t.Host != "" {
			tv.Host = t.Host
		}
		if t.State == Done || t.State == Landed || t.State == Skipped {
			v.Finished++
		}
		v.Tasks = append(v.Tasks, tv)
	}
	return v
}
