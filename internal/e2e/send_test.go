package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// A send right after owt new reaches the agent as its own prompt, after the
// task: owt waits for the agent to be ready instead of typing into a TUI
// that is still starting (and drops what it is sent, like real ones do).
func TestSendRightAfterNewReachesTheAgent(t *testing.T) {
	e := NewEnv(t)
	e.SetAgentEnv("OWT_FAKE_STARTUP", "1500ms")
	repo := e.NewRepo("app")
	// claude takes its task as an argument; aider gets it pasted once ready.
	for i, tool := range []string{"claude", "claude", "claude", "aider"} {
		name := fmt.Sprintf("s%d", i)
		task, msg := "Task "+name, "message for "+name
		e.MustOwt(repo, "new", "--tool", tool, "--no-setup", "--name", name, task)
		out := e.MustOwt(repo, "send", name, msg)
		require.Equal(t, "sent to "+name+"\n", out)
		require.Equal(t, []string{task, msg}, e.WaitPrompts(name, 2), "the task, then the message, each its own prompt")
	}
	for _, ev := range e.Events() {
		require.NotEqual(t, "dropped", ev.Event, "owt typed into an agent that was still starting: %+v", ev)
	}
}

// An agent that never gets ready: the send gives up after [agent]
// send_timeout, says so, and types nothing.
func TestSendToAnAgentThatNeverGetsReadyFails(t *testing.T) {
	e := NewEnv(t)
	e.Tmux("set-environment", "-g", "OWT_FAKE_STARTUP", "1h")
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[agent]\nsend_timeout = \"1s\"\n")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "slow", "Task")
	r := e.Owt(repo, "send", "slow", "hello")
	requireOneLineError(t, r, "still starting")
	require.Contains(t, r.Stderr, "nothing was typed")
	require.NotContains(t, e.Capture("app/slow"), "hello")
}

// muteTool is a tool whose screen never shows what is typed (no echo); it
// prints each line it reads as GOT:<line>.
const muteTool = `
[agent]
send_timeout = "1s"

[tools.mute]
command = ["sh", "-c", "stty -echo; while read -r l; do echo \"GOT:$l\"; done"]
prompt = "none"

[tools.deaf]
command = ["sh", "-c", "stty igncr; cat >/dev/null"]
prompt = "none"
`

// Text that never shows on the agent's screen is not submitted: owt says
// so and leaves Enter unpressed.
func TestSendWhoseTextNeverLandsDoesNotPressEnter(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", muteTool)
	e.MustOwt(repo, "new", "--tool", "mute", "--no-setup", "--name", "m", "Task")
	e.Eventually(10*time.Second, "m leaves starting", func() bool { return e.Find(repo, "m").Status != "starting" })
	r := e.Owt(repo, "send", "m", "hello")
	requireOneLineError(t, r, "did not show")
	require.Contains(t, r.Stderr, "Enter was not pressed")
	// The text waits in the tool's input: one Enter of ours submits it
	// whole. Had owt pressed Enter, this one would read an empty line.
	e.Tmux("send-keys", "-t", "app/m", "Enter")
	screen := e.WaitScreen("app/m", "GOT:")
	require.Contains(t, screen, "GOT:hello")
	require.Equal(t, 1, strings.Count(screen, "GOT:"), screen)
}

// Text that shows but that Enter never submits: owt presses Enter at most
// three times, then says the text is typed but not submitted.
func TestSendNeverSubmittedIsNotSent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", muteTool)
	e.MustOwt(repo, "new", "--tool", "deaf", "--no-setup", "--name", "d", "Task")
	e.Eventually(10*time.Second, "d leaves starting", func() bool { return e.Find(repo, "d").Status != "starting" })
	r := e.Owt(repo, "send", "d", "hello")
	requireOneLineError(t, r, "typed but not submitted")
	require.NotEqual(t, "working", e.Find(repo, "d").Status, "a send that did not go in does not make the agent working")
}

// Parallel sends to one agent each arrive as their own prompt, once.
func TestParallelSendsToOneAgentStaySeparate(t *testing.T) {
	e := NewEnv(t)
	e.SetAgentEnv("OWT_FAKE_WORK", "100ms")
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "First task")
	e.WaitPrompts("a", 1)
	sent := 1
	for _, n := range []int{3, 5} {
		var msgs []string
		for i := 1; i <= n; i++ {
			msgs = append(msgs, fmt.Sprintf("batch%d-msg%d", n, i))
		}
		for _, r := range e.parallelOwt(repo, msgs, func(m string) []string { return []string{"send", "a", m} }) {
			require.Equal(t, 0, r.Code, r.Stderr)
		}
		sent += n
		got := e.WaitPrompts("a", sent)
		require.Len(t, got, sent, "no prompt merged, none twice: %q", got)
		batch := append([]string(nil), got[sent-n:]...)
		sort.Strings(batch)
		require.Equal(t, msgs, batch)
	}
}

// owt's killed-by-hand session reads as gone, not as an exited agent
// whose pane is a shell.
func TestSendToAKilledSessionSaysItIsGone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "k", "Task")
	e.WaitPrompts(it.Name, 1)
	e.Tmux("kill-session", "-t", it.Session)
	e.Eventually(15*time.Second, "k exited", func() bool { return e.Find(repo, "k").Status == "exited" })
	r := e.Owt(repo, "send", "k", "hello")
	requireOneLineError(t, r, "session is gone")
	require.NotContains(t, r.Stderr, "shell")
}

// Parallel owt new in one repo: git's worktree bookkeeping is serialized,
// so every create (and every delete after) succeeds.
func TestParallelNewAndDeleteInOneRepo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	const n = 30
	for round := 0; round < 5; round++ {
		var names []string
		for i := 0; i < n; i++ {
			names = append(names, fmt.Sprintf("r%dp%02d", round, i))
		}
		for _, r := range e.parallelOwt(repo, names, func(name string) []string {
			return []string{"new", "--no-agent", "--no-setup", "--name", name, "Task " + name}
		}) {
			require.Equal(t, 0, r.Code, "round %d: %s", round, r.Stderr)
		}
		list := e.Git(repo, "worktree", "list")
		for _, name := range names {
			require.Contains(t, list, "/"+name+" ", "round %d", round)
		}
		for _, r := range e.parallelOwt(repo, names, func(name string) []string { return []string{"delete", "--yes", name} }) {
			require.Equal(t, 0, r.Code, "round %d: %s", round, r.Stderr)
		}
		require.Equal(t, 1, len(strings.Split(e.Git(repo, "worktree", "list"), "\n")), "round %d", round)
	}
}

// parallelOwt runs owt once per item, all at once, and returns the results
// in item order.
func (e *Env) parallelOwt(dir string, items []string, args func(string) []string) []fixture.Result {
	out := make([]fixture.Result, len(items))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(owtBin, args(it)...)
			cmd.Dir = dir
			cmd.Env = e.Environ()
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			<-start
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code, stderr = -1, *bytes.NewBufferString(err.Error())
			}
			out[i] = fixture.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
		}()
	}
	close(start)
	wg.Wait()
	return out
}
