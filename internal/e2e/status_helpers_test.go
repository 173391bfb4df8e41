package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
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
// returns its view then, without the pane's lines. It looks as Eventually
// does: more rarely the longer it waits.
func (e *Env) WaitStatus(repo, name, st string, timeout time.Duration) StatusView {
	e.t.Helper()
	return e.WaitStatusFrom(repo, name, st, "", timeout)
}

// WaitStatusFrom is WaitStatus for status st from source src ("" any).
// An agent's first "working" may come from owt (its runner saw the turn
// on screen) a moment before its own hook says so, more often on a busy
// machine: a test of what the hooks report waits for them.
func (e *Env) WaitStatusFrom(repo, name, st, src string, timeout time.Duration) StatusView {
	e.t.Helper()
	var v StatusView
	what := name + " to be " + st
	if src != "" {
		what += " from " + src
	}
	e.EventuallyWhy(timeout, what, func() bool {
		out := e.MustOwt(repo, "status", name, "--json", "--lines", "0")
		v = StatusView{}
		require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
		return v.Status == st && (src == "" || v.Source == src)
	}, func() string {
		return fmt.Sprintf("it is %s (from %s) since %s\nowt log:\n%s", v.Status, v.Source, v.Since.Format(time.RFC3339Nano), e.OwtLog())
	})
	return v
}

// SessionOption reads a user option of an agent's session.
func (e *Env) SessionOption(session, option string) string {
	out, _ := e.TryTmux("show-options", "-v", "-t", "="+session+":", option)
	return out
}

// requireStatusOption fails unless the session's @owt-status comes to say
// want: owt publishes it from a detached process, a moment after the state
// changed (later still on a busy machine).
func (e *Env) requireStatusOption(session, want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.SessionOption(session, "@owt-status") != want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(e.t, want, e.SessionOption(session, "@owt-status"))
}

// waitHandedOver waits until the agent's runner (owt _run) has handed the
// pane to the agent: the pane's own process is the agent, and the watcher
// of its start (owt _run --watching) is gone. No process of owt's reads
// the records for it from then on.
func (e *Env) waitHandedOver(session string) {
	e.t.Helper()
	e.Eventually(30*time.Second, "the agent of "+session+" alone in its pane", func() bool {
		out := e.Tmux("display-message", "-p", "-t", "="+session+":", "#{pane_pid} #{pane_id}")
		pid, pane, _ := strings.Cut(strings.TrimSpace(out), " ")
		comm, _ := os.ReadFile("/proc/" + pid + "/comm")
		return strings.TrimSpace(string(comm)) != "owt" && len(watchersOf(pane)) == 0
	})
}

// watchersOf are the pids of the watchers (owt _run --watching) of the
// agent in pane.
func watchersOf(pane string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		cmdline, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), "\x00_run\x00--watching") {
			continue
		}
		environ, _ := os.ReadFile("/proc/" + d.Name() + "/environ")
		if slices.Contains(strings.Split(string(environ), "\x00"), "TMUX_PANE="+pane) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}
