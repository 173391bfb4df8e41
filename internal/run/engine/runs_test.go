package engine

// The runs the engine's tests drive (the model's tests have their own).

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
)

func engineRun(t *testing.T, into string) *run.Run {
	t.Helper()
	p, err := run.Parse("p.toml", []byte(`
[run]
`+into+`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
`))
	require.NoError(t, err)
	r := run.NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	r.Socket = "/tmp/tmux/default"
	return r
}

func childRun(t *testing.T) *run.Run {
	t.Helper()
	p, err := run.Parse("p.toml", []byte(`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
[[task]]
id = "c"
task = "c"
depends_on = ["a", "b"]
`))
	require.NoError(t, err)
	r := run.NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	for _, id := range []string{"a", "b"} {
		tr, _ := r.Task(id)
		tr.State, tr.Branch, tr.Name = run.Done, "r/"+id, "r-"+id
	}
	return r
}

func pacedRun(t *testing.T, extra string) (*run.Run, *run.TaskRun) {
	t.Helper()
	p, err := run.Parse("p.toml", []byte(`
[run]
timeout = "10s"
`+extra+`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
`))
	require.NoError(t, err)
	r := run.NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt, a.Since = run.Running, "r-a", 1, time.Unix(0, 0)
	return r, a
}
