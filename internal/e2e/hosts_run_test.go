package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
// there is room, and a remote task whose agent stops needs the user,
// never done or landed; owt run status says where each one runs.
func TestRunPlacesTasksOnAHostAndOneHere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	h.Clone(repo, "src/app")
	e.MustOwt(repo, "host", "add", "box", h.Address, "--repo", repo+"=~/src/app", "--label", "gpu", "--max-agents", "1", "--yes")
	e.WriteFile(repo, "g.toml", `[run]
max_concurrent = 3
tool = "claude"

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

	// far's agent goes idle there: the task needs the user, saying why.
	e.Eventually(60*time.Second, "far needs the user", func() bool {
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
			require.Contains(t, tk.Why, "does not judge or land a task on a host yet")
			require.Contains(t, tk.Why, "g-far@box")
		}
	}

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

	// Never done, never landed: no evidence here of the host's work.
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
// ones (a waiting one under NEEDS YOU), and refuses the verbs that need
// the worktree for them, saying which command does it; nothing is done.
func TestControlPopupShowsRemoteAgentsAndRefusesTheirVerbs(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a far task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "asks", "!ask ls")
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.Eventually(30*time.Second, "asks@box waiting in the bar", func() bool { return strings.Contains(bar(), "asks@box") })
	e.Eventually(30*time.Second, "the remote and local agents idle in the bar", func() bool { return strings.Contains(bar(), "○ 2") })

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
	e.keys(p, "x")
	require.Contains(t, e.WaitScreen(p, "not from this board yet"), "delete it with owt delete far@box")
	e.keys(p, "m")
	e.WaitScreen(p, "bring it home with owt merge far@box")
	e.keys(p, "i")
	e.WaitScreen(p, "type to it with owt send far@box MESSAGE")

	// Nothing was done to it there.
	items, _ := e.hostList(repo)
	found := false
	for _, it := range items {
		found = found || (it.Name == "far" && it.Host == "box")
	}
	require.True(t, found, "far@box is still there")
	require.Equal(t, []string{"a far task"}, h.Prompts("far"), "nothing typed to it")
}
