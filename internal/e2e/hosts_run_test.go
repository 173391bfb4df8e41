package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// hostRunStatus is the part of owt run status --json these tests read.
type hostRunStatus struct {
	State string
	Tasks []struct {
		ID, State, Name, Host, Why string
		Labels                     []string
	}
}

func (e *Env) hostRunStatus(dir, name string) hostRunStatus {
	e.t.Helper()
	out := e.MustOwt(dir, "run", "status", name, "--json")
	var v hostRunStatus
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// A run places tasks on a host by name or by label: the engine starts
// them there through the owt new --host path (their prompts reach the
// host's agents, not local ones), the local task runs here and is judged
// done, the host's max_agents holds the second remote task back until
// there is room, and a remote task whose agent makes no commit is judged
// as a local one is: nudged once (on its host), then it needs the user,
// never done or landed; owt run status says where each one runs.
func TestRunPlacesTasksOnAHostAndOneHere(t *testing.T) {
	e := NewEnv(t, fixture.Long())
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo, "--label", "gpu", "--max-agents", "1")
	e.WriteFile(repo, "g.toml", `[run]
max_concurrent = 3
tool = "claude"
settle = "2s"

[[task]]
id = "far"
task = "the far task"
host = "box"

[[task]]
id = "gpu"
task = "the gpu task"
labels = ["gpu"]

[[task]]
id = "here"
task = "`+taskScript("here.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	v := e.hostRunStatus(repo, "g")
	where := map[string]string{}
	for _, tk := range v.Tasks {
		where[tk.ID] = tk.Host
	}
	require.Equal(t, map[string]string{"far": "box", "gpu": "", "here": "local"}, where, "placements before any start")
	require.Contains(t, e.MustOwt(repo, "run", "status", "g"), "labels:gpu")
	e.logRunOnFailure(repo, "g")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(e.OwtLog())
		}
	})
	e.MustOwt(repo, "tmux", "init") // this server's monitor drives the run

	e.Eventually(60*time.Second, "far's agent prompted on the host", func() bool { return len(h.Prompts("g-far")) > 0 })
	require.True(t, strings.HasPrefix(h.Prompts("g-far")[0], "the far task"), h.Prompts("g-far"))
	require.Empty(t, e.Prompts("g-far"), "the far task ran here")

	// max_agents = 1 on box: gpu waits, no attempt spent, nothing made there.
	e.Eventually(30*time.Second, "gpu held back by box's max_agents", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "gpu" {
				return tk.State == "backoff" && strings.Contains(tk.Why, "full")
			}
		}
		return false
	})
	require.Empty(t, h.Prompts("g-gpu"))

	// The local task is judged done here, on its evidence.
	e.Eventually(60*time.Second, "here done", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "here" {
				return tk.State == "done" || tk.State == "landed"
			}
		}
		return false
	})
	require.NotEmpty(t, e.Prompts("g-here"))
	require.Empty(t, h.Prompts("g-here"), "the local task ran on the host")

	// far's agent goes idle there without a commit: it is nudged there
	// once, then the task needs the user, saying why.
	e.Eventually(90*time.Second, "far needs the user", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "far" {
				return tk.State == "needs_you"
			}
		}
		return false
	})
	for _, tk := range e.hostRunStatus(repo, "g").Tasks {
		if tk.ID == "far" {
			require.Equal(t, "box", tk.Host)
			require.Equal(t, "g-far", tk.Name)
			require.Contains(t, tk.Why, "idle without any result, still after one message to the agent")
		}
	}
	nudges := 0
	for _, p := range h.Prompts("g-far") {
		if strings.HasPrefix(p, "If your task is finished") {
			nudges++
		}
	}
	require.Equal(t, 1, nudges, "the nudge reaches the host's agent once: %q", h.Prompts("g-far"))
	require.Empty(t, e.Prompts("g-far"), "nothing typed to a local agent")

	// Room on box: gpu starts there at its next try.
	cfgFile := filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt", "config.toml")
	cfg := strings.Replace(userConfig(e), "max_agents = 1", "max_agents = 2", 1)
	require.Contains(t, cfg, "max_agents = 2")
	require.NoError(t, os.WriteFile(cfgFile, []byte(cfg), 0o644))
	e.Eventually(90*time.Second, "gpu's agent prompted on the host", func() bool { return len(h.Prompts("g-gpu")) > 0 })
	e.Eventually(30*time.Second, "gpu running on box", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "gpu" {
				return tk.Host == "box" && (tk.State == "running" || tk.State == "needs_you")
			}
		}
		return false
	})
	table := e.MustOwt(repo, "run", "status", "g")
	require.Contains(t, table, "HOST")
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && (f[0] == "far" || f[0] == "gpu") {
			require.Equal(t, "box", f[3], line)
		}
		if len(f) >= 4 && f[0] == "here" {
			require.Equal(t, "local", f[3], line)
		}
	}

	// Never done, never landed: no work on its branch there.
	for _, ev := range e.runEvents(repo, "g") {
		if ev.Task == "far" || ev.Task == "gpu" {
			require.NotContains(t, []string{"done", "landed"}, ev.Event, "%s: %s", ev.Task, ev.Detail)
		}
	}
	require.NotEqual(t, "finished", e.hostRunStatus(repo, "g").State)

	// Its agent deleted on the host: the task says it is gone, still not done.
	e.MustOwt(repo, "delete", "g-far@box", "--force", "--yes")
	e.Eventually(60*time.Second, "far's agent said gone", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "far" {
				return tk.State == "needs_you" && strings.Contains(tk.Why, "is gone from host box")
			}
		}
		return false
	})

	// owt run retry: another attempt on the host, a new agent there.
	e.MustOwt(repo, "run", "retry", "g", "far")
	e.Eventually(60*time.Second, "far's second attempt prompted on the host", func() bool { return len(h.Prompts("g-far-a2")) > 0 })
	require.Contains(t, h.Prompts("g-far-a2")[0], "owt started this task again (attempt 2), as the user asked")
	require.Contains(t, h.Prompts("g-far-a2")[0], "the far task")
	require.Empty(t, e.Prompts("g-far-a2"), "the retry ran here")
	e.Eventually(30*time.Second, "far's second attempt running on box", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			if tk.ID == "far" {
				return tk.Host == "box" && tk.Name == "g-far-a2" && (tk.State == "running" || tk.State == "needs_you")
			}
		}
		return false
	})
}

// A plan that places a task on a host no config has, or on labels no
// host has, is refused at owt run start (exit 2), nothing registered.
func TestRunStartRefusesUnknownHostsAndLabels(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	for file, want := range map[string][]string{
		"nohost.toml":   {`task[a].host`, `no such host "nosuch"`},
		"nolabel.toml":  {`task[a].labels`, "no configured host has the labels tpu"},
		"runhost.toml":  {`run.host`, `no such host "gone"`},
		"bothkeys.toml": {"give host or labels, not both"},
	} {
		plan := map[string]string{
			"nohost.toml":   "[[task]]\nid = \"a\"\ntask = \"x\"\nhost = \"nosuch\"\n",
			"nolabel.toml":  "[[task]]\nid = \"a\"\ntask = \"x\"\nlabels = [\"tpu\"]\n",
			"runhost.toml":  "[run]\nhost = \"gone\"\n\n[[task]]\nid = \"a\"\ntask = \"x\"\n",
			"bothkeys.toml": "[[task]]\nid = \"a\"\ntask = \"x\"\nhost = \"box\"\nlabels = [\"gpu\"]\n",
		}[file]
		e.WriteFile(repo, file, plan)
		r := e.Owt(repo, "run", "start", file)
		require.Equal(t, 2, r.Code, "%s: %s %s", file, r.Stdout, r.Stderr)
		for _, w := range want {
			require.Contains(t, r.Stderr, w, file)
		}
		require.NotContains(t, r.Stdout, "registered", file)
	}
	require.Empty(t, e.runFiles(), "nothing registered")
}

// The control popup lists the hosts' agents as NAME@HOST beside the local
// ones (a waiting one under NEEDS YOU), and its verbs run on the agent's
// host, through control's remote verbs: i types to it (hostile text
// arrives as typed, runs nothing), d reviews its diff there, m brings its
// branch home after the host's report and a yes, x deletes it there
// after asking; what needs its worktree here (a, R) is refused, saying
// which command does it. A no changes nothing.
func TestControlPopupRunsVerbsOnRemoteAgents(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	marker := filepath.Join(os.TempDir(), "owt-pwned-popup-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a far task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "asks", "!ask ls")
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.Eventually(30*time.Second, "asks@box waiting in the bar", func() bool { return strings.Contains(bar(), "asks@box") })
	e.Eventually(30*time.Second, "the remote and local agents idle in the bar", func() bool { return strings.Contains(bar(), "○ 2") })
	items, _ := e.hostList(repo)
	var wt, branch string
	for _, it := range items {
		if it.Name == "far" {
			wt, branch = it.Path, it.Branch
		}
	}
	out, err := h.Run("cd '" + wt + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)

	p := e.pane(repo, owtBin, "popup", "control")
	var screen string
	e.Eventually(15*time.Second, "the remote agents on the board", func() bool {
		screen = e.Capture(p)
		return sectionOf(screen, "far@box") == "IN FLIGHT" && sectionOf(screen, "asks@box") == "NEEDS YOU"
	})
	require.Contains(t, screen, "on host box")
	require.NotEmpty(t, sectionOf(screen, "here"), screen)

	e.keys(p, "/")
	e.typeText(p, "far")
	e.keys(p, "Enter")
	e.Eventually(10*time.Second, "far@box alone", func() bool {
		s := e.Capture(p)
		return strings.Contains(s, "far@box") && !strings.Contains(s, "asks@box")
	})
	// Not from the board: what needs its worktree here.
	e.keys(p, "R")
	e.WaitScreen(p, "resolve in its worktree there (owt switch far@box)")

	// i: a message typed to it on the host, as typed.
	msg := "look at $(touch " + marker + ") and `touch " + marker + "`; 'q' \"dq\" -rf"
	e.keys(p, "i")
	e.typeText(p, msg)
	e.keys(p, "Enter")
	e.WaitScreen(p, "sent to far@box")
	require.Equal(t, []string{"a far task", msg}, waitHostPrompts(e, h, "far", 2))

	// d: its diff, read on the host.
	e.keys(p, "d")
	e.WaitScreen(p, "feature.txt")
	e.keys(p, "Enter")
	e.WaitScreen(p, "+done")
	e.keys(p, "Escape")
	e.WaitScreen(p, "feature.txt  +1")
	e.keys(p, "Escape")
	e.WaitScreen(p, "IN FLIGHT")

	// m: the host's report, then a no changes nothing.
	main := e.Git(repo, "rev-parse", "main")
	e.Eventually(30*time.Second, "far idle again", func() bool {
		r := e.Owt(repo, "status", "far@box", "--json")
		return strings.Contains(r.Stdout, `"idle"`)
	})
	e.keys(p, "m")
	screen = e.WaitScreen(p, "[y]")
	require.Contains(t, screen, "Merge "+branch+" into main?")
	require.Contains(t, screen, "1 ahead")
	require.Contains(t, screen, "is deleted on box")
	e.keys(p, "n")
	e.WaitScreen(p, "nothing was changed")
	require.Equal(t, main, e.Git(repo, "rev-parse", "main"))
	// A yes brings it home.
	e.keys(p, "m")
	e.WaitScreen(p, "[y]")
	e.keys(p, "y")
	e.WaitScreen(p, "merged far@box into main")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	e.Eventually(15*time.Second, "far gone on the host", func() bool {
		items, _ := e.hostList(repo)
		for _, it := range items {
			if it.Name == "far" {
				return false
			}
		}
		return true
	})

	// x: asks@box deleted on the host after a yes (nothing to lose). The
	// filter is cleared first (/, Esc), each key seen taken before the
	// next: an Esc and the next key in one read are Alt+key, as in any
	// terminal program, and the filter would stay.
	e.keys(p, "/")
	e.WaitScreen(p, "/far█")
	e.keys(p, "Escape")
	e.Eventually(10*time.Second, "the filter cleared", func() bool {
		s := e.Capture(p)
		return strings.Contains(s, "asks@box") && !strings.Contains(s, "/far█")
	})
	e.keys(p, "/")
	e.typeText(p, "asks")
	e.keys(p, "Enter")
	e.Eventually(30*time.Second, "asks@box selected", func() bool { return strings.Contains(e.Capture(p), "asks@box") })
	e.keys(p, "x")
	screen = e.WaitScreen(p, "Delete asks@box?")
	require.Contains(t, screen, "On box, session")
	require.Contains(t, screen, "Nothing would be lost")
	e.keys(p, "y")
	e.WaitScreen(p, "deleted asks@box")
	items, _ = e.hostList(repo)
	names := []string{}
	for _, it := range items {
		names = append(names, it.Name+"@"+it.Host)
	}
	require.Equal(t, []string{"here@"}, names)
	_, err = os.Stat(marker)
	require.True(t, os.IsNotExist(err), "a message ran a command")
}

// remoteTaskScript is taskScript for an agent on host h: its owt is the
// one owt host add put there.
func remoteTaskScript(h *fixture.SSHHost, file string) string {
	return "!write " + file + "\\n!commit add " + file + "\\n!exec " + h.Home + "/.local/bin/owt done --summary did-" + file
}

// intoLog is the subjects of the commits of branch into.
func (e *Env) intoLog(repo, into string) string {
	e.t.Helper()
	return e.Git(repo, "log", "--format=%s", into)
}

// remoteAgents are the names of the agents on host box (owt list there,
// asked fresh).
func remoteAgents(e *Env, h *fixture.SSHHost) []string {
	e.t.Helper()
	out, err := h.Run("cd src/app && owt list --json --fresh")
	require.NoError(e.t, err, out)
	var items []struct{ Name string }
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	var names []string
	for _, it := range items {
		names = append(names, it.Name)
	}
	return names
}

// Two tasks on the host (by name and by label) and one here are each
// judged done on their evidence (a commit on their own branch, a clean
// tree, owt done) and landed in into: into's log holds each task's
// commit, the host's agents are deleted there once their work is home,
// and owt run status still says where each one ran.
func TestRunJudgesAndLandsTasksOnAHostAndHere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo, "--label", "gpu", "--max-agents", "2")
	e.WriteFile(repo, "g.toml", `[run]
into = "integ"
max_concurrent = 3
tool = "claude"
settle = "2s"

[[task]]
id = "far"
task = "`+remoteTaskScript(h, "far.txt")+`"
host = "box"

[[task]]
id = "gpu"
task = "`+remoteTaskScript(h, "gpu.txt")+`"
labels = ["gpu"]

[[task]]
id = "here"
task = "`+taskScript("here.txt")+`"

[[task]]
id = "after"
task = "`+taskScript("after.txt")+`"
depends_on = ["far"]
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.logRunOnFailure(repo, "g")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(180*time.Second, "run g finished", func() bool { return e.hostRunStatus(repo, "g").State == "finished" })
	// The local child of a remote task starts from into with its work.
	after := e.Find(repo, "g-after")
	e.Git(after.Path, "cat-file", "-e", "HEAD:far.txt")
	require.Contains(t, e.Prompts("g-after")[0], "far", "its parent's work is in its brief")
	v := e.hostRunStatus(repo, "g")
	where := map[string]string{}
	for _, tk := range v.Tasks {
		require.Equal(t, "landed", tk.State, "%s: %s", tk.ID, tk.Why)
		where[tk.ID] = tk.Host
	}
	require.Equal(t, map[string]string{"far": "box", "gpu": "box", "here": "local", "after": "local"}, where, "where each task ran, after landing")
	require.NotEmpty(t, h.Prompts("g-far"))
	require.NotEmpty(t, h.Prompts("g-gpu"))
	require.Empty(t, e.Prompts("g-far"), "far ran here")
	require.Empty(t, e.Prompts("g-gpu"), "gpu ran here")
	require.Empty(t, h.Prompts("g-here"), "here ran on the host")

	// Each task's commit is in into, with its file.
	log := e.intoLog(repo, "integ")
	for _, f := range []string{"far.txt", "gpu.txt", "here.txt", "after.txt"} {
		require.Contains(t, log, "add "+f, log)
		e.Git(repo, "cat-file", "-e", "integ:"+f)
	}
	for _, id := range []string{"far", "gpu", "here"} {
		require.True(t, e.hasRunEvent(repo, "g", "done", id, "owt done"), "%s judged done on owt done", id)
	}
	require.True(t, e.hasRunEvent(repo, "g", "done", "far", "1 commit(s)"))

	// The remote agents are deleted on the host once their work is here.
	e.Eventually(60*time.Second, "the host's agents deleted there", func() bool {
		return e.hasRunEvent(repo, "g", "teardown", "far", "deleted on host box") &&
			e.hasRunEvent(repo, "g", "teardown", "gpu", "deleted on host box")
	})
	require.Empty(t, remoteAgents(e, h), "agents left on the host")
	require.Contains(t, e.MustOwt(repo, "run", "status", "g"), "box")
}

// A host that drops off mid-run (its sshd and connections killed) does
// not fail its task: the task keeps running, its active clock held (a
// timeout shorter than the outage is not hit), and once the host is back
// its agent's work is judged and landed.
func TestRunTaskOnAHostThatGoesAwayWaitsThenLands(t *testing.T) {
	e := NewEnv(t, fixture.Long())
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.startRun(repo, "g", `[run]
into = "integ"
tool = "claude"
settle = "2s"
timeout = "25s"

[[task]]
id = "far"
task = "!exec sleep 6\n`+remoteTaskScript(h, "far.txt")+`"
host = "box"
`)
	e.Eventually(60*time.Second, "far's agent prompted on the host", func() bool { return len(h.Prompts("g-far")) > 0 })
	e.Eventually(30*time.Second, "far's clock runs", func() bool { return e.hasRunEvent(repo, "g", "clock", "far", "active time runs") })
	h.Stop()
	stopped := time.Now()
	state := func() (string, string) {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			return tk.State, tk.Why
		}
		return "", ""
	}
	e.Eventually(30*time.Second, "far's clock held for its host", func() bool {
		return e.hasRunEvent(repo, "g", "clock", "far", "its host box is unreachable")
	})
	// Out longer than the task's timeout: it is still running, never failed.
	for time.Since(stopped) < 40*time.Second {
		st, why := state()
		require.Equal(t, "running", st, why)
		time.Sleep(2 * time.Second)
	}
	e.requireNoEvent(repo, "g", "done", "landed", "backoff", "failed", "needs_you")

	h.Start()
	e.Eventually(120*time.Second, "far landed once its host is back", func() bool { st, _ := state(); return st == "landed" })
	require.Contains(t, e.intoLog(repo, "integ"), "add far.txt")
	e.Git(repo, "cat-file", "-e", "integ:far.txt")
}

// A task on a host whose first attempt fails (owt done --fail there) is
// started again, on a host its placement allows, as a new agent; the
// second attempt's work is judged done and landed, the first agent left
// where it was.
func TestRunRetriesATaskOnAHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	script := h.WriteFile("attempt.sh", `if [ -f "$HOME/one" ]; then
  exec "$HOME/.local/bin/owt" done --summary second
fi
touch "$HOME/one"
exec "$HOME/.local/bin/owt" done --fail first-try-fails
`, 0o755)
	e.startRun(repo, "g", `[run]
into = "integ"
tool = "claude"
settle = "2s"

[run.retry]
max_attempts = 2
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "far"
task = "!write far.txt\n!commit add far.txt\n!exec sh `+script+`"
host = "box"
`)
	e.Eventually(150*time.Second, "far landed", func() bool {
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			return tk.State == "landed"
		}
		return false
	})
	require.True(t, e.hasRunEvent(repo, "g", "backoff", "far", "first-try-fails"), "the first attempt failed")
	require.True(t, e.hasRunEvent(repo, "g", "started", "far", "g-far-a2"), "the second attempt is a new agent")
	require.True(t, e.hasRunEvent(repo, "g", "started", "far", "on host box"))
	p := h.Prompts("g-far-a2")
	require.NotEmpty(t, p)
	require.Contains(t, p[0], "owt started this task again (attempt 2)")
	require.Contains(t, p[0], "first-try-fails")
	v := e.hostRunStatus(repo, "g")
	require.Equal(t, "g-far-a2", v.Tasks[0].Name)
	require.Equal(t, "box", v.Tasks[0].Host)
	require.Contains(t, e.intoLog(repo, "integ"), "add far.txt")
	e.Eventually(60*time.Second, "the second agent deleted there", func() bool {
		return e.hasRunEvent(repo, "g", "teardown", "far", "g-far-a2 deleted on host box")
	})
	require.Equal(t, []string{"g-far"}, remoteAgents(e, h), "the first attempt's agent is left where it was")
}

// The plan's checks of a task on a host run there, in its agent's
// worktree: one whose work passes them is done (checks passed) and lands;
// one whose work fails them is told so on its host, once, and then needs
// the user, never done nor landed.
func TestRunChecksTasksOnAHostThere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.startRun(repo, "g", `[run]
into = "integ"
tool = "claude"
settle = "2s"
checks = [["test", "-f", "ok.txt"]]

[[task]]
id = "good"
task = "`+remoteTaskScript(h, "ok.txt")+`"
host = "box"

[[task]]
id = "bad"
task = "`+remoteTaskScript(h, "bad.txt")+`"
host = "box"
`)
	states := func() map[string]string {
		out := map[string]string{}
		for _, tk := range e.hostRunStatus(repo, "g").Tasks {
			out[tk.ID], out[tk.ID+".why"] = tk.State, tk.Why
		}
		return out
	}
	e.Eventually(120*time.Second, "good landed, bad needs the user", func() bool {
		s := states()
		return s["good"] == "landed" && s["bad"] == "needs_you"
	})
	require.True(t, e.hasRunEvent(repo, "g", "checks", "good", "passed on"))
	require.True(t, e.hasRunEvent(repo, "g", "done", "good", "checks passed"))
	require.True(t, e.hasRunEvent(repo, "g", "checks", "bad", "failed on"))
	require.Contains(t, states()["bad.why"], "checks fail on")
	told := 0
	for _, p := range h.Prompts("g-bad") {
		if strings.Contains(p, "owt's checks fail on your last commit") {
			told++
			require.Contains(t, p, "$ test -f ok.txt", "what failed is in the message")
		}
	}
	require.Equal(t, 1, told, "bad is told once, on its host: %q", h.Prompts("g-bad"))
	for _, ev := range e.runEvents(repo, "g") {
		if ev.Task == "bad" {
			require.NotContains(t, []string{"done", "landed"}, ev.Event, ev.Detail)
		}
	}
	log := e.intoLog(repo, "integ")
	require.Contains(t, log, "add ok.txt")
	require.NotContains(t, log, "add bad.txt")
}
