package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
)

// PaneState is one pane as the monitor sees it on a tick.
type PaneState struct {
	ID          string // %N
	SessionID   string // $N
	SessionName string
	WindowID    string // @N
	TTY         string // the pane's terminal, e.g. /dev/pts/3
	Dead        bool
	DeadStatus  int // the exit code; 128+N for signal N (DeadCode); -1 unknown
	// Activity is the last output in the pane's window (tmux keeps it to
	// the second).
	Activity time.Time
	// Viewed: a client is on this pane (its session is attached, and the
	// pane is the active one of the session's active window).
	Viewed bool
}

var snapshotFields = []string{"#{pane_id}", "#{session_id}", "#{session_name}", "#{window_id}", "#{pane_tty}",
	"#{pane_dead}", "#{pane_dead_status}/#{pane_dead_signal}", "#{window_activity}",
	"#{?#{&&:#{session_attached},#{&&:#{window_active},#{pane_active}}},1,0}"}

// Snapshot lists every pane of the server and captures the visible text
// of the panes in capture, in one tmux call when they fit in one (the
// monitor's whole view of the server per tick costs one process), else in
// as few as fit (batches: tmux refuses a command line over 16 KiB, and at
// ~150 panes to capture one call was refused whole, every tick). marker
// must not appear in pane text (the caller makes it random); it separates
// the captures.
//
// A pane in capture that vanished since the caller listed it makes tmux
// stop at that command: the panes are still returned with the captures
// made before it. ErrNoServer means the server is gone.
func (c *Client) Snapshot(capture []string, marker string) ([]PaneState, map[string]string, error) {
	ctx, cancel := c.bounded(c.context())
	defer cancel()
	var panes []PaneState
	captures := map[string]string{}
	for i, b := range batches(snapshotCommands(capture, marker)) {
		cmd := c.commandIn(ctx, nil, batchArgs(b)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr := proc.Run(ctx, cmd)
		if runErr != nil {
			if errors.Is(runErr, exec.ErrNotFound) {
				return nil, nil, ErrNotInstalled
			}
			if ctx.Err() != nil {
				// Cut off mid-answer: a partial pane list would read as agents gone.
				return nil, nil, fmt.Errorf("tmux list-panes: %w", ctx.Err())
			}
			if isNoServer(strings.TrimSpace(stderr.String())) {
				return nil, nil, ErrNoServer
			}
			if i == 0 && stdout.Len() == 0 {
				return nil, nil, errors.New("tmux list-panes: " + strings.TrimSpace(stderr.String()))
			}
		}
		// Every captured row ends in a newline, the last capture's too:
		// without it, the last reads as one before a marker line does,
		// so a pane's text does not depend on its place in the call.
		ps, caps := parseSnapshot(strings.TrimSuffix(stdout.String(), "\n"), marker)
		if i == 0 {
			panes = ps
		}
		for id, text := range caps {
			captures[id] = text
		}
		// A pane gone ends its call: the captures after it in that call
		// wait for the next look; the next calls are made.
	}
	return panes, captures, nil
}

// snapshotCommands list every pane, then capture each of capture after a
// line that names it.
func snapshotCommands(capture []string, marker string) [][]string {
	cmds := [][]string{{"list-panes", "-a", "-F", strings.Join(snapshotFields, fieldSep)}}
	for _, p := range capture {
		// display-message expands #{pane_id}: the marker names its pane.
		// The two go as one, never split between two calls.
		cmds = append(cmds, []string{"display-message", "-p", "-t", p, marker + "#{pane_id}",
			batchSep, "capture-pane", "-p", "-J", "-t", p})
	}
	return cmds
}

// parseSnapshot reads a snapshot's output: the pane list, then each
// capture after the marker line that names its pane. Captures are cut
// out of out, not copied line by line (at 500 agents a tick reads a
// hundred screens).
func parseSnapshot(out, marker string) ([]PaneState, map[string]string) {
	var panes []PaneState
	captures := map[string]string{}
	rest := out
	for rest != "" && !strings.HasPrefix(rest, marker) {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		f := strings.Split(line, fieldSep)
		if len(f) != len(snapshotFields) {
			continue
		}
		ds := 0
		if f[5] == "1" {
			if code, known := DeadCode(f[6]); known {
				ds = code
			} else {
				ds = -1
			}
		}
		act, _ := strconv.ParseInt(f[7], 10, 64)
		panes = append(panes, PaneState{
			ID: f[0], SessionID: f[1], SessionName: f[2], WindowID: f[3], TTY: f[4],
			Dead: f[5] == "1", DeadStatus: ds, Activity: time.Unix(act, 0), Viewed: f[8] == "1",
		})
	}
	for rest != "" {
		id, body, _ := strings.Cut(rest[len(marker):], "\n")
		switch end := strings.Index(body, "\n"+marker); {
		case strings.HasPrefix(body, marker):
			captures[id], rest = "", body
		case end < 0:
			captures[id], rest = body, ""
		default:
			captures[id], rest = body[:end], body[end+1:]
		}
	}
	return panes, captures
}

// WatchServer starts a tmux client that blocks on a wait-for channel no
// one signals: it ends when the server does, so a watcher learns of the
// server's end at once instead of on its next poll. The returned channel
// is closed then; stop ends the watch.
func (c *Client) WatchServer(channel string) (gone <-chan struct{}, stop func(), err error) {
	cmd := c.command(nil, "wait-for", channel)
	// Killed with the watcher, however it ends (SIGKILL included): a
	// leftover client would hold the server's attention forever.
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, nil, ErrNotInstalled
		}
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	stop = func() {
		_ = cmd.Process.Kill()
		<-done
	}
	return done, stop, nil
}
