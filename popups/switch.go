package popups

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Switch is the Alt+s popup: a fuzzy picker over every agent of every
// repository (the ones that need you first) with a preview; Enter moves the
// client that opened it to the agent's session, recreating the session on
// its worktree if tmux lost it.
func Switch(tm *tmux.Client, s Screen) error {
	return finish(s, switchTo(tm))
}

func switchTo(tm *tmux.Client) error {
	h, _ := here(tm)
	a, err := loadAgents(tm)
	if err != nil {
		return err
	}
	it, err := pick(tm, a, pickOptions{
		prompt:  "switch> ",
		header:  "▲ needs you  ● working  ○ idle  ✕ exited",
		preview: true,
	})
	if err != nil {
		return err
	}
	r := a.record(it)
	if r == nil {
		return fmt.Errorf("%s vanished while the picker was open", it.Name)
	}
	w, err := openRecordWorkspace(tm, r)
	if err != nil {
		return err
	}
	id, err := lifecycle.Of(w).EnsureSession(r)
	if err != nil {
		return err
	}
	if err := tm.SwitchClientOf(h.Client, id); err != nil {
		return fmt.Errorf("switch to %s: %w", r.Session, err)
	}
	return nil
}
