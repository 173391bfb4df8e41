package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stretchr/testify/require"
)

// The run tests' shared steps: starting a run from a plan, and reading
// what it says about itself.

// startRun writes plan to name.toml in repo, starts the run, logs the
// run's log when the test fails, and starts owt's tmux side (the monitor
// that drives the run).
func (e *Env) startRun(repo, name, plan string) {
	e.t.Helper()
	e.WriteFile(repo, name+".toml", plan)
	e.MustOwt(repo, "run", "start", name+".toml")
	e.logRunOnFailure(repo, name)
	e.MustOwt(repo, "tmux", "init")
}

// startCommittedRun is startRun with the plan file committed on the
// current branch first, so the checkout is clean.
func (e *Env) startCommittedRun(repo, name, plan string) {
	e.t.Helper()
	e.WriteFile(repo, name+".toml", plan)
	e.Git(repo, "add", name+".toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.startRun(repo, name, plan)
}

// runTaskStates is each task's state and why, by id.
func (e *Env) runTaskStates(dir, name string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, t := range e.runStatus(dir, name).Tasks {
		out[t.ID] = t.State
		out[t.ID+".why"] = t.Why
	}
	return out
}

// runWhy is the run's own why (a paused run says why it waits).
func (e *Env) runWhy(dir, name string) string {
	e.t.Helper()
	var v struct{ Why string }
	out := e.MustOwt(dir, "run", "status", name, "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v.Why
}

// taskStateShown is the STATE column of task id in owt run status.
func (e *Env) taskStateShown(dir, name, id string) string {
	e.t.Helper()
	for _, line := range strings.Split(e.MustOwt(dir, "run", "status", name), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == id {
			return f[1]
		}
	}
	e.t.Fatalf("no task %s in owt run status %s", id, name)
	return ""
}

// logRunOnFailure prints the run's log when the test failed, to say why.
func (e *Env) logRunOnFailure(dir, name string) {
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Log(e.Owt(dir, "run", "log", name).Stdout)
		}
	})
}

// requireNoEvent fails when the run's log has any of the events.
func (e *Env) requireNoEvent(dir, name string, events ...string) {
	e.t.Helper()
	for _, ev := range e.runEvents(dir, name) {
		for _, bad := range events {
			require.NotEqual(e.t, bad, ev.Event, "%s %s: %s", ev.Task, ev.Event, ev.Detail)
		}
	}
}

// commitOnMain commits a new file on main in the user's checkout.
func (e *Env) commitOnMain(repo, file string) {
	e.t.Helper()
	e.WriteFile(repo, file, "from main\n")
	e.Git(repo, "add", file)
	e.Git(repo, "commit", "-q", "-m", "main: "+file)
}

// runListed is the run called name as owt run list --json shows it.
func (e *Env) runListed(dir, name string) (state string, finished int) {
	e.t.Helper()
	var views []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Finished int    `json:"finished"`
	}
	out := e.MustOwt(dir, "run", "list", "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &views), out)
	for _, v := range views {
		if v.Name == name {
			return v.State, v.Finished
		}
	}
	e.t.Fatalf("no run %s in owt run list --json: %s", name, out)
	return "", 0
}

// waitScript is a program that returns once file exists: a task that
// holds its agent at work until the test lets it go.
func (e *Env) waitScript(file string) string {
	e.t.Helper()
	p := filepath.Join(e.Root, "wait-"+filepath.Base(file)+".sh")
	body := "#!/bin/sh\nwhile [ ! -e " + file + " ]; do sleep 0.2; done\n"
	require.NoError(e.t, os.WriteFile(p, []byte(body), 0o755))
	return p
}

// owtLog is owt's own log (the monitor's lines among them).
func (e *Env) owtLog() string {
	out, _ := exec.Command("sh", "-c", "cat "+e.Root+"/state/owt/*.log").CombinedOutput()
	return string(out)
}
