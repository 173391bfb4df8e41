package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// StatusView is the part of owt status --json the tests read.
type StatusView struct {
	Name, Status, Source, Pane, Session string
	Since                               time.Time
	ExitCode                            *int     `json:"exit_code"`
	Live                                bool     `json:"live"`
	Lines                               []string `json:"last_lines"`
}

// Status returns owt status NAME --json.
func (e *Env) Status(repo, name string) StatusView {
	e.t.Helper()
	out := e.MustOwt(repo, "status", name, "--json")
	var v StatusView
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// WaitStatus waits until the agent called name has status st, and
// returns its view then.
func (e *Env) WaitStatus(repo, name, st string, timeout time.Duration) StatusView {
	e.t.Helper()
	var v StatusView
	deadline := time.Now().Add(timeout)
	for {
		if v = e.Status(repo, name); v.Status == st {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %s waiting for %s to be %s; it is %s (from %s) since %s\nowt log:\n%s",
				timeout, name, st, v.Status, v.Source, v.Since.Format(time.RFC3339Nano), e.OwtLog())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// SessionOption reads a user option of an agent's session.
func (e *Env) SessionOption(session, option string) string {
	out, _ := e.TryTmux("show-options", "-v", "-t", "="+session+":", option)
	return out
}

// MonitorPID is the pid the monitor of this env's server recorded, 0 if none.
func (e *Env) MonitorPID() int {
	b, _ := os.ReadFile(e.Socket + ".owt-monitor.pid")
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// MonitorPIDs are the processes running "owt monitor" for this env's
// server (by its socket in their command line).
func (e *Env) MonitorPIDs() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 3 && args[0] == owtBin && args[1] == "monitor" && strings.Contains(string(cmdline), e.Socket) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// waitProcessesGone waits, after the server was killed, for what ran on
// it to end: the fake agents (on hangup they run their SessionEnd hooks,
// which write state) and the monitor. Nothing may write into the temp
// dirs once they are being removed.
func (e *Env) waitProcessesGone() {
	pids := e.MonitorPIDs()
	data, _ := os.ReadFile(e.Log)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Event string `json:"event"`
			PID   int    `json:"pid"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "start" && ev.PID > 0 {
			pids = append(pids, ev.PID)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Anything else still running in this world — a detached owt _publish
	// or owt hook finishing after the server went — would write into the
	// temp dir while the test removes it.
	for time.Now().Before(deadline) {
		left := e.worldProcesses()
		if len(left) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range e.worldProcesses() {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		e.t.Errorf("process %d of this test still runs after its tmux server was killed: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// worldProcesses are the live processes started in this test's world:
// they carry its XDG_STATE_HOME in their environment.
func (e *Env) worldProcesses() []int {
	marker := []byte("XDG_STATE_HOME=" + e.vars["XDG_STATE_HOME"] + "\x00")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie: gone, waiting for its parent
		}
		pids = append(pids, pid)
	}
	return pids
}

// KillServerExpectMonitorGone is registered by the status tests: at the
// end it kills the tmux server and fails the test if this env's monitor
// outlives it (the monitor must exit with its server).
func (e *Env) KillServerExpectMonitorGone() {
	e.t.Cleanup(func() {
		pids := e.MonitorPIDs()
		_, _ = e.TryTmux("kill-server")
		deadline := time.Now().Add(5 * time.Second)
		for _, pid := range pids {
			for alive(pid) {
				if time.Now().After(deadline) {
					e.t.Errorf("owt monitor (pid %d) still runs after its tmux server was killed", pid)
					_ = syscall.Kill(pid, syscall.SIGKILL)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
}

// OwtLog is owt's log ($XDG_STATE_HOME/owt/owt.log).
func (e *Env) OwtLog() string {
	b, _ := os.ReadFile(filepath.Join(e.vars["XDG_STATE_HOME"], "owt", "owt.log"))
	return string(b)
}

// LogLines are the lines of owt's log written by who ("hook", "monitor").
func (e *Env) LogLines(who string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(e.OwtLog()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), "] "+who+": ") {
			out = append(out, sc.Text())
		}
	}
	return out
}

// AgentPID is the pid of the fake agent of worktree name.
func (e *Env) AgentPID(name string) int {
	data, _ := os.ReadFile(e.Log)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Event string `json:"event"`
			Agent string `json:"agent"`
			PID   int    `json:"pid"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "start" && ev.Agent == name {
			return ev.PID
		}
	}
	return 0
}

// HookRuns are the hook commands the fake agent of worktree name ran for
// event, with their exit codes.
func (e *Env) HookRuns(name, event string) []HookRun {
	data, _ := os.ReadFile(e.Log)
	var out []HookRun
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Event, Agent, Name, Command string
			Exit                        int
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "hook" && ev.Agent == name && ev.Name == event {
			out = append(out, HookRun{Command: ev.Command, Exit: ev.Exit})
		}
	}
	return out
}

// HookRun is one hook command an agent ran.
type HookRun struct {
	Command string
	Exit    int
}

// RunHook runs a hook command the way the agent tools do: through sh -c,
// in dir, the event JSON on stdin. It returns the command's stdout.
func (e *Env) RunHook(t *testing.T, dir, command string, event map[string]any, extraEnv ...string) string {
	data, err := json.Marshal(event)
	require.NoError(t, err)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = e.Environ(extraEnv...)
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "hook %q: %s", command, stderr.String())
	return stdout.String()
}

// HookCommands reads the hook commands of a settings file, per event.
func HookCommands(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &s), string(data))
	out := map[string][]string{}
	for ev, raw := range s.Hooks {
		var groups []struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(raw, &groups) != nil {
			continue // not an event (Gemini's switches)
		}
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], h.Command)
			}
		}
	}
	return out
}

// killWorld kills every process of this world at once, with no test to
// report to: the last resort before the test binary's timeout.
func (e *Env) killWorld() {
	for _, pid := range e.worldProcesses() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
