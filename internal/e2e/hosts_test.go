package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// The remote-host tests log in over a real sshd as a second local user
// (fixture.SSHHost): they need root, and skip saying so without it.

// hostItem is the part of owt list --json these tests read.
type hostItem struct {
	Name, Host, Status, Branch, Path, Session, Task string
	Unreachable                                     bool
	SeenAt                                          *time.Time `json:"seen_at"`
}

func (e *Env) hostList(dir string, args ...string) ([]hostItem, fixture.Result) {
	e.t.Helper()
	r := e.Owt(dir, append([]string{"list", "--json"}, args...)...)
	require.Equal(e.t, 0, r.Code, "owt list: %s", r.Stderr)
	var items []hostItem
	require.NoError(e.t, json.Unmarshal([]byte(r.Stdout), &items), r.Stdout)
	return items, r
}

func userConfig(e *Env) string {
	b, _ := os.ReadFile(filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt", "config.toml"))
	return string(b)
}

// owt host add checks the machine over ssh, copies owt there (only with
// a yes) and writes [hosts.NAME]; host check and list see it ready; host
// remove takes it out. Bad input changes nothing.
func TestHostAddCopiesOwtThenCheckListRemove(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	dir := e.Root

	for _, bad := range [][]string{
		{"host", "add"},
		{"host", "add", "box"},
		{"host", "add", "bad/name", h.Address},
		{"host", "add", "box", "-oProxyCommand=touch /tmp/x"},
		{"host", "add", "box", "me@box;touch x"},
		{"host", "add", "box", h.Address, "--max-agents", "-1"},
		{"host", "add", "box", h.Address, "--repo", "nothing"},
		{"host", "check", "nosuch"},
		{"host", "remove", "nosuch"},
		{"new", "--host", "nosuch", "task"},
	} {
		r := e.Owt(dir, bad...)
		requireOneLineError(t, r, "")
		require.Equal(t, 2, r.Code, "owt %v: %s", bad, r.Stderr)
	}
	require.Empty(t, userConfig(e), "bad input wrote the config")

	// No owt there, no terminal to ask and no --yes: nothing is copied or written.
	r := e.Owt(dir, "host", "add", "box", h.Address)
	requireOneLineError(t, r, "--yes")
	require.Equal(t, 1, r.Code)
	require.Empty(t, userConfig(e))
	_, err := os.Stat(filepath.Join(h.Home, ".local", "bin", "owt"))
	require.True(t, os.IsNotExist(err), "owt was copied without a yes")

	out := e.MustOwt(dir, "host", "add", "box", h.Address, "--label", "gpu,bigmem", "--max-agents", "3", "--yes")
	require.Contains(t, out, "added host box ("+h.Address+")")
	local := strings.TrimSpace(e.MustOwt(dir, "--version"))
	there, err := h.Run("owt --version")
	require.NoError(t, err, there)
	require.Equal(t, local, there, "the host runs this owt")
	for _, p := range []string{"owt", "owt-mcp"} {
		fi, err := os.Stat(filepath.Join(h.Home, ".local", "bin", p))
		require.NoError(t, err, p)
		require.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), p)
	}
	cfg := userConfig(e)
	require.Contains(t, cfg, "[hosts.box]")
	require.Contains(t, cfg, h.Address)

	r = e.Owt(dir, "host", "add", "box", h.Address, "--yes")
	requireOneLineError(t, r, "already exists")
	require.Equal(t, 2, r.Code)

	out = e.MustOwt(dir, "host", "check", "box")
	require.Contains(t, out, "host box is ready")

	var rows []struct {
		Name      string
		Reachable bool
		Agents    int
		Version   string
		Labels    []string
		MaxAgents int `json:"max_agents"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(dir, "host", "list", "--json")), &rows))
	require.Len(t, rows, 1)
	require.Equal(t, "box", rows[0].Name)
	require.True(t, rows[0].Reachable)
	require.Equal(t, 0, rows[0].Agents)
	require.Equal(t, []string{"gpu", "bigmem"}, rows[0].Labels)
	require.Equal(t, 3, rows[0].MaxAgents)
	require.Equal(t, strings.TrimPrefix(local, "owt version "), rows[0].Version)
	require.Contains(t, e.MustOwt(dir, "host", "list"), "box")

	require.Contains(t, e.MustOwt(dir, "host", "remove", "box"), "removed host box")
	require.NotContains(t, userConfig(e), "hosts.box")
	r = e.Owt(dir, "host", "check", "box")
	require.Equal(t, 2, r.Code)
}

// A refused key is one line naming ssh-add, and nothing is written.
func TestHostAddWithARefusedKeySaysSSHAdd(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	require.NoError(t, os.WriteFile(filepath.Join(h.Home, ".ssh", "authorized_keys"), nil, 0o644))
	r := e.Owt(e.Root, "host", "add", "box", h.Address, "--yes")
	requireOneLineError(t, r, "ssh-add")
	require.Equal(t, 1, r.Code)
	require.Empty(t, userConfig(e))
}

// addHostWithRepo adds the test host as box, its clone of repo at
// ~/src/app, and returns the clone's path.
func addHostWithRepo(e *Env, h *fixture.SSHHost, repo string, extra ...string) string {
	e.t.Helper()
	clone := h.Clone(repo, "src/app")
	e.MustOwt(repo, append([]string{"host", "add", "box", h.Address, "--repo", repo + "=~/src/app", "--yes"}, extra...)...)
	return clone
}

// owt new --host starts the agent on the host, in a worktree of its
// clone, from this repository's base commit (pushed there to owt's own
// ref, no branch moved); owt list shows it beside the local agents with
// its host; host remove is refused while it lives there.
func TestNewOnHostRunsTheAgentThereAndListShowsIt(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	// A commit the host does not have yet: the agent must start from it.
	e.WriteFile(repo, "new.txt", "new\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "local only")
	base := e.Git(repo, "rev-parse", "main")
	remoteMain := gitAs(t, h, clone, "rev-parse", "main")
	require.NotEqual(t, base, remoteMain)

	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	r0 := e.Owt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "fix the far thing")
	require.Equal(t, 0, r0.Code, r0.Stderr)
	require.Contains(t, r0.Stdout, "far: claude on ")
	require.Contains(t, r0.Stdout, "on host box")
	require.Contains(t, r0.Stderr, "main on box was left as it is", "main is checked out there: it does not move, and the user is told")

	e.Eventually(15*time.Second, "the remote agent's prompt", func() bool { return len(h.Prompts("far")) > 0 })
	require.Equal(t, []string{"fix the far thing"}, h.Prompts("far"))
	require.Empty(t, e.Prompts("far"), "the agent ran here")

	var far hostItem
	e.Eventually(15*time.Second, "the remote agent in owt list", func() bool {
		items, _ := e.hostList(repo)
		for _, it := range items {
			if it.Name == "far" {
				far = it
			}
		}
		return far.Name == "far" && far.Status != "starting"
	})
	require.Equal(t, "box", far.Host)
	require.False(t, far.Unreachable)
	require.NotEqual(t, "exited", far.Status)
	require.True(t, strings.HasPrefix(far.Path, h.Home+"/"), "worktree %s not on the host", far.Path)
	items, _ := e.hostList(repo)
	hostOf := map[string]string{}
	for _, it := range items {
		hostOf[it.Name] = it.Host
	}
	require.Equal(t, map[string]string{"here": "", "far": "box"}, hostOf)

	// --all asks the hosts for every repository of theirs.
	all, _ := e.hostList(repo, "--all")
	hostOf = map[string]string{}
	for _, it := range all {
		hostOf[it.Name] = it.Host
	}
	require.Equal(t, map[string]string{"here": "", "far": "box"}, hostOf)

	table := e.MustOwt(repo, "list")
	require.Contains(t, table, "HOST")
	for _, line := range strings.Split(table, "\n") {
		switch {
		case strings.Contains(line, "far"):
			require.True(t, strings.HasPrefix(line, "box "), line)
		case strings.Contains(line, "here"):
			require.True(t, strings.HasPrefix(line, "local "), line)
		}
	}

	// The branch starts at the local base commit; the host's main did not move.
	require.Equal(t, base, gitAs(t, h, clone, "rev-parse", far.Branch+"~0"))
	require.Equal(t, remoteMain, gitAs(t, h, clone, "rev-parse", "main"))
	require.Equal(t, base, gitAs(t, h, clone, "rev-parse", "refs/owt/base/"+base))
	require.Equal(t, "main", gitAs(t, h, clone, "branch", "--show-current"))

	// Every one of those ssh calls rode one shared connection.
	require.Len(t, h.Masters(), 1, "one ssh connection to the host")

	r := e.Owt(repo, "host", "remove", "box")
	requireOneLineError(t, r, "has 1 agent")

	// max_agents = 1: a second agent there is refused, and nothing is made.
	cfgFile := filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt", "config.toml")
	cfg := strings.Replace(userConfig(e), "[hosts.box]\n", "[hosts.box]\nmax_agents = 1\n", 1)
	require.NoError(t, os.WriteFile(cfgFile, []byte(cfg), 0o644))
	r = e.Owt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "second", "another")
	requireOneLineError(t, r, "max_agents is 1")
	require.Empty(t, h.Prompts("second"))
	require.NotContains(t, gitAs(t, h, clone, "branch", "--list"), "second")
	require.Contains(t, userConfig(e), "hosts.box")
	require.Contains(t, e.MustOwt(repo, "host", "remove", "box", "--force"), "keep running")
}

// gitAs runs git as the host's user in dir.
func gitAs(t *testing.T, h *fixture.SSHHost, dir string, args ...string) string {
	t.Helper()
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	out, err := h.Run("git -C '" + dir + "' " + strings.Join(q, " "))
	require.NoError(t, err, out)
	return out
}

// Tasks that are shell on a command line reach the remote agent as the
// very text typed, and run nothing on either machine.
func TestHostileTaskThroughNewOnHostRunsNothing(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	marker := filepath.Join(os.TempDir(), "owt-pwned-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })
	tasks := []string{
		"$(touch " + marker + ")",
		"`touch " + marker + "` and ; touch " + marker + " && echo 'single' \"double\" \\ back",
		"-rf --force first line\nsecond line; touch " + marker + "\n$HOME ${IFS} ~ * | > " + marker,
	}
	for i, task := range tasks {
		name := "h" + string(rune('0'+i))
		e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", name, "--", task)
		e.Eventually(15*time.Second, "prompt of "+name, func() bool { return len(h.Prompts(name)) > 0 })
		require.Equal(t, []string{task}, h.Prompts(name))
	}
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "a task ran a command: %s exists", marker)
	items, _ := e.hostList(repo)
	tasksSeen := map[string]string{}
	for _, it := range items {
		tasksSeen[it.Name] = it.Task
	}
	for i, task := range tasks {
		require.Equal(t, task, tasksSeen["h"+string(rune('0'+i))])
	}
}

// A host that goes away leaves its agents listed as unreachable with their
// last known status — never exited — and they are back when it is.
func TestUnreachableHostKeepsItsAgentsLastStatus(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")
	var last string
	e.Eventually(20*time.Second, "far idle", func() bool {
		items, _ := e.hostList(repo)
		for _, it := range items {
			if it.Name == "far" {
				last = it.Status
			}
		}
		return last == "idle"
	})

	h.Stop()
	// owt list may reuse the stream's last word for a few seconds (≤ 10 s,
	// while the stream says the same agents); the host is found gone
	// within the keepalives' ~30 s.
	var items []hostItem
	var r fixture.Result
	e.Eventually(40*time.Second, "list says box is unreachable", func() bool {
		items, r = e.hostList(repo)
		return len(items) == 1 && items[0].Unreachable
	})
	require.Equal(t, "far", items[0].Name)
	require.Equal(t, "idle", items[0].Status, "the last known status, not exited")
	require.NotNil(t, items[0].SeenAt)
	require.Contains(t, r.Stderr, "host box")
	require.Contains(t, r.Stderr, "unreachable")
	require.Contains(t, e.MustOwt(repo, "list"), "unreachable (last idle")
	var rows []struct{ Reachable bool }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "host", "list", "--json")), &rows))
	require.False(t, rows[0].Reachable)
	// An unknown name is unknown (exit 3) whether or not a host answers.
	for _, args := range [][]string{{"status", "nosuch"}, {"delete", "nosuch", "--yes"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 3, r.Code, "%v: %s", args, r.Stderr)
		require.Contains(t, r.Stderr, "could not be asked")
	}

	h.Start()
	items, _ = e.hostList(repo)
	require.Len(t, items, 1)
	require.False(t, items[0].Unreachable)
	require.Equal(t, "idle", items[0].Status)
}

// owt send NAME reaches an agent on a host (found among the hosts serving
// the repository, or named NAME@HOST), the message on the remote owt's
// stdin: hostile text arrives as typed and runs nothing.
func TestSendToAnAgentOnAHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	marker := filepath.Join(os.TempDir(), "owt-pwned-send-"+h.User)
	t.Cleanup(func() { _ = os.Remove(marker) })

	msg := "look at $(touch " + marker + ") and `touch " + marker + "`; touch " + marker + " 'q' \"dq\""
	out := e.MustOwt(repo, "send", "far", msg)
	require.Equal(t, "sent to far@box\n", out)
	require.Equal(t, []string{"the task", msg}, waitHostPrompts(e, h, "far", 2))

	out = e.MustOwt(repo, "send", "far@box", "--", "-rf --force")
	require.Equal(t, "sent to far@box\n", out)
	require.Equal(t, []string{"the task", msg, "-rf --force"}, waitHostPrompts(e, h, "far", 3))
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "a message ran a command")

	r := e.Owt(repo, "send", "nobody", "hello")
	requireOneLineError(t, r, "nobody")
	require.Equal(t, 3, r.Code)
	r = e.Owt(repo, "send", "nobody@box", "hello")
	requireOneLineError(t, r, "no agent nobody on box")
	require.Equal(t, 3, r.Code)
	r = e.Owt(repo, "send", "far@nohost", "hello")
	requireOneLineError(t, r, "no such host")
	require.Equal(t, 2, r.Code)

	h.Stop()
	r = e.Owt(repo, "send", "far", "while away")
	requireOneLineError(t, r, "unreachable")
	require.Equal(t, 1, r.Code)
	h.Start()
	require.Len(t, h.Prompts("far"), 3, "nothing was typed while the host was away")
}

func waitHostPrompts(e *Env, h *fixture.SSHHost, name string, n int) []string {
	e.t.Helper()
	e.Eventually(15*time.Second, "prompts on the host", func() bool { return len(h.Prompts(name)) >= n })
	return h.Prompts(name)
}

// The local monitor follows the host's status stream: a remote agent
// counts in the local status bar, one that waits for a permission is
// named NAME@HOST, a host that goes away is said unreachable with its
// agents' last status, and the stream comes back with the host.
func TestRemoteStatusReachesTheLocalBar(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")
	t.Cleanup(func() {
		if t.Failed() {
			for _, pid := range e.MonitorPIDs() {
				_ = syscall.Kill(pid, syscall.SIGQUIT)
			}
			time.Sleep(time.Second)
			t.Logf("owt.log:\n%s\nbar: %q", e.OwtLog(), bar())
		}
	})
	e.Eventually(20*time.Second, "the remote agent idle in the bar", func() bool { return strings.Contains(bar(), "○ 1") })

	// [notify] tells of a remote agent's transition as of a local one's.
	told := filepath.Join(e.Root, "told")
	cfgFile := filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt", "config.toml")
	cfg := userConfig(e) + "\n[notify]\non = [\"waiting\"]\ncommand = [\"sh\", \"-c\", \"echo \\\"$OWT_NAME $OWT_STATUS\\\" >> " + told + "\"]\n"
	require.NoError(t, os.WriteFile(cfgFile, []byte(cfg), 0o644))
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "asks", "!ask ls")
	e.Eventually(20*time.Second, "asks@box named in the bar", func() bool { return strings.Contains(bar(), "asks@box") })
	require.Contains(t, bar(), "○ 1")
	e.Eventually(10*time.Second, "the notify command told", func() bool {
		b, _ := os.ReadFile(told)
		return string(b) == "asks@box waiting\n"
	})

	h.Stop()
	e.Eventually(45*time.Second, "box unreachable in the bar", func() bool { return strings.Contains(bar(), "unreachable: box") })
	require.Regexp(t, `⚠ unreachable: box, seen \d+s ago`, bar(), "with how long it has been silent")
	require.Contains(t, bar(), "asks@box", "its agents keep their last status")
	require.Contains(t, bar(), "○ 1")
	require.NotContains(t, bar(), "✕", "nothing shows as exited")

	h.Start()
	e.Eventually(45*time.Second, "box back in the bar", func() bool { return !strings.Contains(bar(), "unreachable") })
	require.Contains(t, bar(), "asks@box")
	require.Contains(t, e.OwtLog(), "host box is back")

	// A host taken out of the config leaves the bar (its agents run on there).
	e.MustOwt(repo, "host", "remove", "box", "--force")
	e.Eventually(15*time.Second, "box gone from the bar", func() bool { return !strings.Contains(bar(), "@box") })
	require.NotContains(t, bar(), "○")
}

// owt status, why and wait about an agent on a host run on that host
// (owt host exec, the argv as JSON on stdin): same output, same exit codes.
func TestStatusWhyWaitOfAnAgentOnAHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")

	require.Equal(t, "far: idle\n", e.MustOwt(repo, "wait", "far", "--until", "idle", "--timeout", "30s"))
	var v struct{ Name, Status string }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "status", "far@box", "--json")), &v))
	require.Equal(t, "far", v.Name)
	require.Equal(t, "idle", v.Status)
	require.Contains(t, e.MustOwt(repo, "status", "far", "-n", "5"), "idle")
	require.NotEmpty(t, e.MustOwt(repo, "why", "far"))

	r := e.Owt(repo, "wait", "far", "--until", "exited", "--timeout", "1s")
	requireOneLineError(t, r, "not exited")
	require.Equal(t, 1, r.Code)
	r = e.Owt(repo, "status", "nobody@box")
	requireOneLineError(t, r, "nobody")
	require.Equal(t, 3, r.Code)
	r = e.Owt(repo, "why", "far@elsewhere")
	requireOneLineError(t, r, "no such host")
	require.Equal(t, 2, r.Code)
}

// owt switch to an agent on a host, inside tmux, opens a window running
// ssh -t HOST tmux attach: the agent's own screen, from the host.
func TestSwitchToAnAgentOnAHostOpensAnAttachedWindow(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")
	pane := e.Tmux("display-message", "-p", "-t", "harness", "#{pane_id}")
	inside := []string{"TMUX=" + e.Socket + ",1,0", "TMUX_PANE=" + pane}
	r := e.OwtIn(repo, inside, "", "switch", "far")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "far@box: in window %")
	windows := e.Tmux("list-windows", "-t", "harness", "-F", "#{window_name} #{pane_id}")
	var win string
	for _, l := range strings.Split(windows, "\n") {
		if strings.HasPrefix(l, "far@box ") {
			win = strings.TrimPrefix(l, "far@box ")
		}
	}
	require.NotEmpty(t, win, "no window far@box in %q", windows)
	e.WaitScreen(win, "Welcome to Claude Code")
	require.Empty(t, e.Sessions()[1:], "no session was made here")
}

// Alt+s lists the agents of the followed hosts beside the local ones
// (NAME@HOST, from the host's status stream: no ssh call for the first
// frame); Enter on one opens a window attached to it over ssh.
func TestSwitchPopupShowsRemoteAgentsAndAttaches(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "here", "a local task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a far task")
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.Eventually(20*time.Second, "both agents idle in the bar", func() bool { return strings.Contains(bar(), "○ 2") })

	p := e.pane(repo, owtBin, "popup", "switch")
	screen := e.WaitScreen(p, "2/2")
	require.Regexp(t, `far@box\s+app\s+claude\s+\d+s\s+on box`, screen)
	require.Regexp(t, `here\s+app\s+claude`, screen)
	e.typeText(p, "far@")
	e.WaitScreen(p, "1/2")
	require.Contains(t, e.WaitScreen(p, "Enter opens a window attached to it over ssh"), "on host box")
	e.keys(p, "Enter")
	var win string
	e.Eventually(10*time.Second, "a window far@box", func() bool {
		out, _ := e.TryTmux("list-windows", "-t", "harness", "-F", "#{window_name} #{pane_id}")
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "far@box ") {
				win = strings.TrimPrefix(l, "far@box ")
			}
		}
		return win != ""
	})
	e.WaitScreen(win, "Welcome to Claude Code")
}

// A host that stops answering on an open connection (half-open: the
// machine hangs) is found out by ssh's keepalives within about 30
// seconds: the bar says it is unreachable, its agents keep their status.
func TestHalfOpenConnectionToAHostIsFoundOut(t *testing.T) {
	e := NewEnv(t, fixture.Long())
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	bar := func() string { out, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line"); return out }
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "a task")
	e.Eventually(20*time.Second, "far idle in the bar", func() bool { return strings.Contains(bar(), "○ 1") })

	h.Freeze()
	// ServerAliveInterval 10 × ServerAliveCountMax 3, plus a tick.
	e.Eventually(50*time.Second, "box unreachable in the bar", func() bool { return strings.Contains(bar(), "unreachable: box") })
	require.Contains(t, bar(), "○ 1", "its agent keeps its last status")
	require.Contains(t, e.OwtLog(), "host box unreachable")
	require.NotContains(t, e.OwtLog(), "host box is back", "nothing answers while it hangs")
	h.Thaw()
	e.Eventually(45*time.Second, "box back", func() bool { return !strings.Contains(bar(), "unreachable") })
}

// A host with search directories and no repos entry: owt new --host finds
// the clone whose origin is this repository's (in another URL form),
// remembers it, and owt list then asks that clone.
func TestNewOnHostFindsTheCloneByOrigin(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	e.Git(repo, "remote", "add", "origin", "https://git.example.invalid/acme/app.git")
	other := e.NewRepo("other")
	h.Clone(other, "src/other")
	clone := h.Clone(repo, "src/app")
	gitAs(t, h, clone, "remote", "set-url", "origin", "git@git.example.invalid:acme/app")
	e.MustOwt(repo, "host", "add", "box", h.Address, "--search", "~/src", "--search", "/nonexistent", "--yes")

	out := e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	require.Contains(t, out, "in "+h.Home+"/src/app.worktrees/far on host box")
	e.Eventually(15*time.Second, "the prompt", func() bool { return len(h.Prompts("far")) > 0 })
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	require.Equal(t, "box", items[0].Host)

	// A repository with no clone there is refused, saying so.
	e.Git(other, "remote", "add", "origin", "https://git.example.invalid/acme/nothere")
	r := e.Owt(other, "new", "--host", "box", "--tool", "claude", "--no-setup", "nothing")
	requireOneLineError(t, r, "no checkout with origin")
}

// host add --repo names the host's checkout and refuses one that is not
// there; with --clone it clones the repository's origin there first.
func TestHostAddClonesTheRepositoryThere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	// An origin both machines can read: a bare repository of the host's user.
	origin := filepath.Join(h.Home, "origin.git")
	e.Git(e.Root, "clone", "-q", "--bare", repo, origin)
	out, err := exec.Command("chown", "-R", h.User+":", origin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	e.Git(repo, "remote", "add", "origin", origin)

	r := e.Owt(repo, "host", "add", "box", h.Address, "--repo", repo+"=~/src/app", "--yes")
	requireOneLineError(t, r, "no checkout at ~/src/app")
	require.Empty(t, userConfig(e))

	r = e.Owt(repo, "host", "add", "box", h.Address, "--repo", repo+"=~/src/app", "--clone", "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "cloned "+origin+" to box:~/src/app")
	require.Equal(t, e.Git(repo, "rev-parse", "main"), gitAs(t, h, filepath.Join(h.Home, "src", "app"), "rev-parse", "HEAD"))
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	e.Eventually(15*time.Second, "the prompt", func() bool { return len(h.Prompts("far")) > 0 })
}

// Alt+c offers the hosts once there are any: choosing one starts the
// agent there (as owt new --host) and opens a window attached to it.
func TestCreatePopupStartsAnAgentOnAHost(t *testing.T) {
	e := newQuietEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("shop")
	addHostWithRepo(e, h, repo)

	p := e.pane(repo, owtBin, "popup", "create")
	e.WaitScreen(p, "Task")
	task := "Add a cart page; don't $(touch pwned)"
	e.typeText(p, task)
	e.keys(p, "Tab")
	e.waitFocus(p, "Where")
	require.Contains(t, e.Capture(p), "box: "+h.Address)
	e.keys(p, "Down")
	e.keys(p, "Enter")
	e.waitFocus(p, "Tool") // claude preselected
	e.keys(p, "Enter")
	e.waitFocus(p, "Template")
	e.keys(p, "Enter")
	e.waitFocus(p, "Base branch")
	e.keys(p, "Enter")
	e.waitFocus(p, "Plan mode?")
	e.keys(p, "Enter")
	e.Eventually(20*time.Second, "the task on the host", func() bool {
		data, _ := os.ReadFile(h.AgentLog)
		return strings.Contains(string(data), `"text":"Add a cart page; don't $(touch pwned)"`)
	})
	var win string
	e.Eventually(10*time.Second, "a window attached to it", func() bool {
		out, _ := e.TryTmux("list-windows", "-t", "harness", "-F", "#{window_name} #{pane_id}")
		for _, l := range strings.Split(out, "\n") {
			if strings.HasSuffix(strings.Fields(l + " x")[0], "@box") {
				win = strings.Fields(l)[1]
			}
		}
		return win != ""
	})
	e.WaitScreen(win, "Welcome to Claude Code")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	require.Equal(t, "box", items[0].Host, "nothing was made here")
	require.Equal(t, task, items[0].Task)
	_, err := os.Stat(filepath.Join(repo, "pwned"))
	require.True(t, os.IsNotExist(err))
}

// owt host fetch brings a remote agent's branch home under the same name,
// fast-forward only: a local branch that went its own way is refused.
func TestHostFetchBringsARemoteBranchHome(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	wt, branch := items[0].Path, items[0].Branch
	commit := func(msg string) string {
		out, err := h.Run("cd '" + wt + "' && echo '" + msg + "' >> work.txt && git add work.txt && git commit -qm '" + msg + "' && git rev-parse HEAD")
		require.NoError(t, err, out)
		return out
	}
	first := commit("one")
	out := e.MustOwt(repo, "host", "fetch", "far")
	require.Contains(t, out, "far@box: branch "+branch+" is here at "+first[:12])
	require.Equal(t, first, e.Git(repo, "rev-parse", branch))

	second := commit("two")
	e.MustOwt(repo, "host", "fetch", "far@box")
	require.Equal(t, second, e.Git(repo, "rev-parse", branch), "a fast-forward")

	// A local commit on the branch: the next fetch would drop it, and is refused.
	e.Git(repo, "checkout", "-q", branch)
	e.WriteFile(repo, "mine.txt", "mine\n")
	e.Git(repo, "add", "mine.txt")
	e.Git(repo, "commit", "-q", "-m", "mine")
	e.Git(repo, "checkout", "-q", "main")
	mine := e.Git(repo, "rev-parse", branch)
	commit("three")
	r := e.Owt(repo, "host", "fetch", "far")
	requireOneLineError(t, r, "fetch")
	require.Equal(t, mine, e.Git(repo, "rev-parse", branch), "nothing was forced")

	r = e.Owt(repo, "host", "fetch", "nobody")
	requireOneLineError(t, r, "no agent nobody")
	require.Equal(t, 3, r.Code)
}

// owt merge of an agent on a host brings its branch home and merges it
// here with the same rules as a local one; refused while it has
// uncommitted work there; afterwards the agent is gone on the host.
func TestMergeBringsARemoteAgentsWorkHome(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	require.Equal(t, "far: idle\n", e.MustOwt(repo, "wait", "far", "--until", "idle", "--timeout", "30s"))
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	wt, branch := items[0].Path, items[0].Branch
	out, err := h.Run("cd '" + wt + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature' && echo wip > wip.txt")
	require.NoError(t, err, out)
	main := e.Git(repo, "rev-parse", "main")

	r := e.Owt(repo, "merge", "far", "--yes")
	requireOneLineError(t, r, "uncommitted")
	require.Equal(t, main, e.Git(repo, "rev-parse", "main"), "nothing landed")
	require.Empty(t, e.Git(repo, "branch", "--list", branch), "nothing was fetched")

	out, err = h.Run("rm '" + wt + "/wip.txt'")
	require.NoError(t, err, out)
	out = e.MustOwt(repo, "merge", "far@box", "--yes")
	require.Contains(t, out, "far")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	require.Empty(t, e.Git(repo, "branch", "--list", branch), "the fetched branch is merged and gone")
	e.Eventually(15*time.Second, "far gone on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 0
	})
	_, err = os.Stat(wt)
	require.True(t, os.IsNotExist(err), "its worktree on the host is removed")
}

// owt delete of an agent on a host runs the host's owt delete: refused
// while it has work not merged there, done with --force.
func TestDeleteAnAgentOnAHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	wt := items[0].Path
	out, err := h.Run("cd '" + wt + "' && echo x > x.txt && git add x.txt && git commit -qm work")
	require.NoError(t, err, out)

	r := e.Owt(repo, "delete", "far@box")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "--force")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "refused: nothing deleted")

	require.Contains(t, e.MustOwt(repo, "delete", "far", "--force"), "deleted far")
	items, _ = e.hostList(repo)
	require.Empty(t, items)
	_, err = os.Stat(wt)
	require.True(t, os.IsNotExist(err))
}

// A dev build (no version of its own) is the same owt only byte for
// byte: another dev build on the host fails host check, and host add
// copies this one over it.
func TestAnotherDevBuildOnTheHostIsReplaced(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	// An "owt" there that says it is this very dev build, but is not
	// this binary.
	local := strings.TrimSpace(e.MustOwt(e.Root, "--version"))
	require.True(t, strings.HasPrefix(local, "owt version v0.0.0-dev "), "this test needs a dev build: %s", local)
	fake := h.WriteFile(filepath.Join(".local", "bin", "owt"), "#!/bin/sh\necho '"+local+"'\n", 0o755)

	r := e.Owt(e.Root, "host", "add", "box", h.Address)
	requireOneLineError(t, r, "another dev build")
	e.MustOwt(e.Root, "host", "add", "box", h.Address, "--yes")
	b, err := os.ReadFile(fake)
	require.NoError(t, err)
	self, err := os.ReadFile(e.Bins.Owt)
	require.NoError(t, err)
	require.True(t, bytes.Equal(self, b), "this owt was copied over the other build")
	require.Contains(t, e.MustOwt(e.Root, "host", "check", "box"), "host box is ready")
}

// The base branch on the host is brought to the base commit when git
// takes it without force (not checked out there): the agent's figures
// there then count only its own work.
func TestNewOnHostFastForwardsTheHostsBaseBranchWhenFree(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	gitAs(t, h, clone, "checkout", "-q", "-b", "parking") // main is free there
	e.WriteFile(repo, "new.txt", "new\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "local only")
	r := e.Owt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "left as it is")
	require.Equal(t, e.Git(repo, "rev-parse", "main"), gitAs(t, h, clone, "rev-parse", "main"))
	var far struct{ Ahead, Insertions int }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "list", "--json")), &[]any{&far}))
	require.Equal(t, 0, far.Ahead, "nothing of the base counts as the agent's")
	require.Equal(t, 0, far.Insertions)
}

// A remote agent whose worktree holds what its branch does not — an edited
// copy of an ignored file (.env) — lands its commits here, and is kept on
// the host with that file: the host's delete loses nothing beyond the
// commits fetched (as a local merge keeps such a worktree).
func TestMergeOfARemoteAgentKeepsItWhileItHoldsMoreThanItsBranch(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	out, err := h.Run("echo SECRET=host > '" + clone + "/.env'")
	require.NoError(t, err, out)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	require.Equal(t, "far: idle\n", e.MustOwt(repo, "wait", "far", "--until", "idle", "--timeout", "30s"))
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	wt := items[0].Path
	out, err = h.Run("cd '" + wt + "' && test \"$(cat .env)\" = SECRET=host && echo SECRET=edited > .env && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)

	r := e.Owt(repo, "merge", "far@box", "--yes")
	require.NotEqual(t, 0, r.Code, "the agent was not removed: %s", r.Stdout)
	require.Contains(t, r.Stderr, "kept there")
	require.Contains(t, r.Stderr, ".env")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")), "its commit landed")
	out, err = h.Run("cat '" + wt + "/.env'")
	require.NoError(t, err, out)
	require.Equal(t, "SECRET=edited", strings.TrimSpace(out), "the edited copy is kept on the host")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "the agent stays on the host")
}

// Merge and ship of an agent on a host name it NAME@HOST, so it is never
// taken for a local agent of the same name; a conflict names the host's
// branch (not owt's fetched copy, gone by then) and advises what an
// agent on a host can do, not --leave-conflicts, which it refuses.
func TestLandingOfARemoteAgentNamesItsHost(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--no-setup", "--no-agent", "--name", "dup", "here")
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "dup", "there")
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "clash", "there too")
	paths := map[string]string{}
	items, _ := e.hostList(repo)
	for _, it := range items {
		if it.Host == "box" {
			paths[it.Name] = it.Path
		}
	}
	out, err := h.Run("cd '" + paths["dup"] + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)
	out, err = h.Run("cd '" + paths["clash"] + "' && echo theirs > README.md && git commit -qam 'theirs'")
	require.NoError(t, err, out)
	e.WriteFile(repo, "README.md", "ours\n")
	e.Git(repo, "commit", "-qam", "ours")

	out = e.MustOwt(repo, "merge", "dup@box", "--yes", "--force")
	require.Contains(t, out, "removed dup@box")
	require.NotContains(t, out, "removed dup:")
	items, _ = e.hostList(repo)
	var clashBranch string
	for _, it := range items {
		if it.Name == "clash" {
			clashBranch = it.Branch
		}
	}

	r := e.Owt(repo, "merge", "clash@box", "--yes", "--force")
	requireOneLineError(t, r, "conflicts with main")
	require.NotContains(t, r.Stderr, "--leave-conflicts")
	require.NotContains(t, r.Stderr, "owt/remote")
	require.Contains(t, r.Stderr, clashBranch)
	require.Contains(t, r.Stderr, "clash@box")
}

// One machine and account added under two names is said so, at host add
// and in host list: its agents would show, and count, under each name.
func TestOneMachineAddedTwiceIsSaidSo(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	e.MustOwt(e.Root, "host", "add", "box", h.Address, "--yes")
	r := e.Owt(e.Root, "host", "add", "box2", h.Address, "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "box2 is the same machine and account as box")
	var rows []struct {
		Name   string
		SameAs []string `json:"same_as"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(e.Root, "host", "list", "--json")), &rows))
	require.Len(t, rows, 2)
	for _, row := range rows {
		require.Len(t, row.SameAs, 1, row.Name)
	}
	require.Contains(t, e.MustOwt(e.Root, "host", "list"), "box2: the same machine and account as box")
}
