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

// diedBuffer is the paste buffer the hook captures pane's last screen in,
// for as long as it takes to save it to a file: a buffer left behind
// would be what a plain paste-buffer pastes, and would keep the screen.
func diedBuffer(pane string) string { return "owt-died-" + pane }

// WhenPaneDies arms pane (an id, %N): when its process exits, tmux keeps
// the pane, records how the process ended (PaneDied reads it) and writes
// its last screen, with its colours, to screenFile (in a folder of the
// caller's, private: tmux writes it with the umask's mode), then runs argv
// there (execvp, two or more words) in dir with env added, as RespawnPane
// does. The hook runs once: it turns remain-on-exit off first, so a
// program that cannot start there (gone, or exiting at once) closes the
// pane, and is never started again in a loop; PaneDied disarms the rest.
func (c *Client) WhenPaneDies(pane, dir, screenFile string, env map[string]string, argv []string) error {
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
		// Never "set-hook -u" here: tmux frees the hook's commands while
		// they run, and drops the rest (4 of 10 agents ending at once).
		// off, not unset: a user's global remain-on-exit would keep the
		// pane of a program that cannot start, and run this again.
		CommandLine([]string{"set-option", "-p", "-t", pane, "remain-on-exit", "off"}),
		CommandLine([]string{"set-option", "-p", "-F", "-t", pane, diedOption, "#{pane_dead_status}/#{pane_dead_signal}"}),
		// -S -1: tmux scrolled the screen up a row to write "Pane is dead".
		CommandLine([]string{"capture-pane", "-e", "-S", "-1", "-t", pane, "-b", diedBuffer(pane)}),
		CommandLine([]string{"save-buffer", "-b", diedBuffer(pane), FormatLiteral(screenFile)}), // tmux expands formats in the path
		CommandLine([]string{"delete-buffer", "-b", diedBuffer(pane)}),
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
	_, _ = c.RunBatch(disarm(pane)...)
}

// disarm are the commands that undo WhenPaneDies on pane.
func disarm(pane string) [][]string {
	return [][]string{
		{"set-option", "-p", "-u", "-t", pane, "remain-on-exit"},
		{"set-hook", "-p", "-u", "-t", pane, "pane-died"},
	}
}

// PaneDied reads how pane's last process ended, as the hook of
// WhenPaneDies kept it: its exit code (128+N for signal N), known false
// when tmux did not say (a signal before tmux 3.3; the hook did not
// run). It clears what the hook kept and disarms the pane.
func (c *Client) PaneDied(pane string) (code int, known bool) {
	st, err := c.Run("display-message", "-p", "-t", pane, "#{"+diedOption+"}")
	_, _ = c.RunBatch(append([][]string{{"set-option", "-p", "-u", "-t", pane, diedOption}}, disarm(pane)...)...)
	if err != nil {
		return 0, false
	}
	return DeadCode(strings.TrimSpace(st))
}

// DeadCode reads "STATUS/SIGNAL" as the hook keeps it: the exit status,
// else 128+SIGNAL; known is false when neither is there.
func DeadCode(s string) (code int, known bool) {
	st, sig, _ := strings.Cut(s, "/")
	if n, err := strconv.Atoi(st); err == nil {
		return n, true
	}
	if n, err := strconv.Atoi(sig); err == nil {
		return 128 + n, true
	}
	return 0, false
}
