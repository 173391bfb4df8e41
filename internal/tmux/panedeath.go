package tmux

import (
	"fmt"
	"strconv"
	"strings"
)

// A pane whose process is the agent itself (no process of owt's waits
// for it: issue 36's memory per agent) learns of its agent's end from
// tmux: remain-on-exit keeps the pane when its process exits, and the
// pane's own pane-died hook keeps the exit status and the last screen,
// then starts argv in the pane (respawn-pane, never -k: a pane that lives
// again is left alone). No shell is involved: the hook is tmux commands
// only, each word quoted for tmux's parser (CommandLine).

// diedOption is the pane option the hook leaves the dead process's status
// in: "STATUS/SIGNAL", one of them empty (tmux before 3.3 has no
// pane_dead_signal: a signal then leaves both empty).
const diedOption = "@owt-died"

// diedBuffer is the paste buffer the hook leaves pane's last screen in.
func diedBuffer(pane string) string { return "owt-died-" + pane }

// WhenPaneDies arms pane (an id, %N): when its process exits, tmux keeps
// the pane, records how the process ended and its screen (PaneDied reads
// them), and runs argv there (execvp, two or more words) in dir with env
// added, as RespawnPane does. Disarm undoes it.
func (c *Client) WhenPaneDies(pane, dir string, env map[string]string, argv []string) error {
	if !strings.HasPrefix(pane, "%") {
		return fmt.Errorf("watch pane %q: not a pane id", pane)
	}
	respawn := []string{"respawn-pane", "-t", pane}
	if dir != "" {
		respawn = append(respawn, "-c", FormatLiteral(dir)) // tmux expands formats in -c
	}
	for _, k := range sortedKeys(env) {
		respawn = append(respawn, "-e", k+"="+env[k])
	}
	respawn = append(append(respawn, "--"), argv...)
	hook := strings.Join([]string{
		CommandLine([]string{"set-option", "-p", "-F", "-t", pane, diedOption, "#{pane_dead_status}/#{pane_dead_signal}"}),
		// -S -1: tmux scrolled the screen up a row to write "Pane is dead".
		CommandLine([]string{"capture-pane", "-e", "-S", "-1", "-t", pane, "-b", diedBuffer(pane)}),
		CommandLine(respawn),
	}, " ; ")
	_, err := c.RunBatch(
		[]string{"set-option", "-p", "-t", pane, "remain-on-exit", "on"},
		[]string{"set-hook", "-p", "-t", pane, "pane-died", hook},
	)
	if err != nil {
		c.Disarm(pane)
		return fmt.Errorf("have tmux keep pane %s when its process exits: %w", pane, err)
	}
	return nil
}

// Disarm undoes WhenPaneDies on pane: the next process's exit closes the
// pane as the user's settings say.
func (c *Client) Disarm(pane string) {
	_, _ = c.RunBatch(
		[]string{"set-option", "-p", "-u", "-t", pane, "remain-on-exit"},
		[]string{"set-hook", "-p", "-u", "-t", pane, "pane-died"},
	)
}

// PaneDied reads what the pane-died hook of WhenPaneDies kept of pane's
// last process: its exit code (128+N for signal N; 128 when tmux did not
// say which signal) and its last screen, with its colours; ok is false
// when the hook kept nothing (it did not run). It clears both and disarms
// the pane.
func (c *Client) PaneDied(pane string) (code int, screen string, ok bool) {
	defer func() {
		_, _ = c.RunBatch(
			[]string{"set-option", "-p", "-u", "-t", pane, diedOption},
			[]string{"delete-buffer", "-b", diedBuffer(pane)},
		)
		c.Disarm(pane)
	}()
	st, err := c.Run("display-message", "-p", "-t", pane, "#{"+diedOption+"}")
	if err != nil {
		return 0, "", false
	}
	code, ok = DeadCode(strings.TrimSpace(st))
	screen, _ = c.Run("show-buffer", "-b", diedBuffer(pane))
	return code, screen, ok
}

// DeadCode reads "STATUS/SIGNAL" as the hook keeps it: the exit status,
// else 128+SIGNAL, else 128 (a signal tmux did not name).
func DeadCode(s string) (int, bool) {
	st, sig, found := strings.Cut(s, "/")
	if !found {
		return 0, false
	}
	if n, err := strconv.Atoi(st); err == nil {
		return n, true
	}
	if n, err := strconv.Atoi(sig); err == nil {
		return 128 + n, true
	}
	return 128, true
}
