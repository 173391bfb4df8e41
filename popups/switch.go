package popups

import (
	"fmt"
	"os"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/hosts"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Switch is the Alt+s popup: a fuzzy picker over every agent of every
// repository (the ones that need you first) with a preview; Enter moves the
// client that opened it to the agent's session, recreating the session on
// its worktree if tmux lost it.
func Switch(tm *tmux.Client, s Screen) error {
	return finish(s, switchTo(tm, s))
}

func switchTo(tm *tmux.Client, s Screen) error {
	h, _ := here(tm)
	a, err := loadAgents(tm)
	if err != nil {
		return err
	}
	a.addHosts(state.HostStatuses())
	it, err := pick(tm, s, a, pickOptions{
		prompt:  "switch> ",
		header:  "▲ needs you  ● working  ○ idle  ✕ exited",
		preview: true,
	})
	if err != nil {
		return err
	}
	if it.Host != "" {
		return attachOnHost(tm, h.SessionID, it)
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

// addHosts adds the agents of the hosts the monitor follows, as their
// status stream last said (no ssh call: the first frame stays quick).
func (a *agents) addHosts(hs []state.HostStatus) {
	for _, h := range hs {
		for _, r := range h.Agents {
			a.items = append(a.items, lifecycle.Item{Name: r.Name, Host: h.Host, Repo: r.Repo, Branch: r.Branch,
				Session: r.Session, Tool: r.Tool, Status: string(r.Status), StatusSince: r.Since, CreatedAt: r.Created,
				Live: h.Reachable, Unreachable: !h.Reachable})
		}
	}
	lifecycle.SortForPicker(a.items)
}

// attachOnHost opens a window in the client's session running ssh -t to
// the agent's host, attached to its tmux session there.
func attachOnHost(tm *tmux.Client, session string, it lifecycle.Item) error {
	cfg, err := config.Load("")
	if err != nil {
		return err
	}
	h, err := hosts.Open(cfg, it.Host)
	if err != nil {
		return err
	}
	argv, err := h.AttachArgv(it.Session)
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	pane, err := tm.NewWindow(tmux.NewWindow{Session: session, Name: it.Name + "@" + it.Host, Dir: home, Argv: argv})
	if err != nil {
		return fmt.Errorf("open a window on %s: %w", it.Host, err)
	}
	_, err = tm.Run("select-window", "-t", pane)
	return err
}
