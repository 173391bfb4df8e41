// Package popups holds owt's interactive screens, the ones tmux shows in
// display-popup (or that run in any pane as `owt popup …`): the switch
// picker (finder.go, bubbletea, scored by go-fuzzyfinder's matching), the
// create form and the merge and delete confirmations (huh), and the
// control popup (bubbletea). They ask and
// show; ship, merge and delete go through internal/control's verbs, the
// ones owt's commands run, so their results reach RECENT and a hang-up
// mid-teardown is handled alike; Esc or Ctrl-c leaves everything as it was.
package popups

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// errCancelled is how a popup says the user closed it: nothing changed,
// nothing to report.
var errCancelled = errors.New("cancelled")

// Screen is where a popup draws and reads keys: the popup's terminal.
type Screen struct {
	In  *os.File
	Out io.Writer
}

// Terminal is the screen of the running process.
func Terminal() Screen { return Screen{In: os.Stdin, Out: os.Stdout} }

// finish turns a popup's outcome into its exit: a cancel is silent, an
// error is shown until a key is pressed so it is not lost when the popup
// closes, and returned so the exit status says it failed.
func finish(s Screen, err error) error {
	if err == nil || errors.Is(err, errCancelled) {
		return nil
	}
	fmt.Fprintf(s.Out, "\n%s\n", errorPalette().Paint(sgrRed, "owt: "+err.Error()))
	s.waitKey("Press any key to close.")
	return err
}

// waitKey shows prompt and waits for one key (in raw mode, so any key will
// do). Without a terminal it returns at once.
func (s Screen) waitKey(prompt string) {
	fmt.Fprintf(s.Out, "\n%s", prompt)
	fd := int(s.In.Fd())
	if !term.IsTerminal(fd) {
		fmt.Fprintln(s.Out)
		return
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return
	}
	defer func() { _ = term.Restore(fd, old) }()
	buf := make([]byte, 16)
	_, _ = s.In.Read(buf)
}

// here is where the popup was opened: tmux's client and pane, and the
// directory the popup runs in (display-popup -d #{pane_current_path}).
func here(tm *tmux.Client) (tmux.Here, string) {
	h, _ := tm.Here()
	dir, err := os.Getwd()
	if err != nil {
		dir = h.PanePath
	}
	return h, dir
}

// openWorkspace opens the repository containing dir. The program that
// new sessions and hooks run is owt itself, not this popup program.
func openWorkspace(dir string, tm *tmux.Client) (*workspace.Workspace, error) {
	w, err := workspace.Open(dir, tm)
	if err != nil {
		return nil, err
	}
	if w.Self, err = owtProgram(); err != nil {
		return nil, err
	}
	return w, nil
}

// owtProgram is the owt installed beside this program, else on PATH.
var owtProgram = memory.Owt

// openRecordWorkspace opens the repository a record belongs to.
func openRecordWorkspace(tm *tmux.Client, r *state.Record) (*workspace.Workspace, error) {
	w, err := openWorkspace(r.Repo, tm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", r.Repo, err)
	}
	return w, nil
}

// firstLine is the first line of s, for one-line displays of a task.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
