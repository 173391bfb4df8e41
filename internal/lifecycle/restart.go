package lifecycle

import (
	"errors"
	"fmt"
	"github.com/owt-tmux/owt/internal/hook"
	"os"
	"strings"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Restart gives the worktree called name a new agent with prompt as its
// task: the session owt proves it made for the record (as Delete does) is
// killed, and a new one starts on the same worktree through the same
// runner as Create. The worktree, its branch, its commits and its
// uncommitted files are never touched: nothing is reset, stashed or
// removed. A run's retry and resume start the next attempt this way.
// It holds the agent's restart lock, as owt restore does: two restarts
// of one agent never race over its record and session.
func (w *Worktrees) Restart(name, prompt string) (*state.Record, error) {
	return w.restartLocked(name, prompt, false)
}

// RestartWith is Restart with prompt as the new agent's first prompt
// while its task stays the user's words (shown in lists, the commit
// message of owt ship): owt resolve starts an exited agent this way.
func (w *Worktrees) RestartWith(name, prompt string) (*state.Record, error) {
	return w.restartLocked(name, prompt, true)
}

func (w *Worktrees) restartLocked(name, prompt string, keepTask bool) (*state.Record, error) {
	unlock, err := state.LockRestart(w.Repo.Root, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.restart(name, prompt, keepTask, nil)
}

// restart starts the agent again; with resume set, the runner starts the
// tool on its own session (resume.Session) and keeps prompt for when it
// cannot.
func (w *Worktrees) restart(name, prompt string, keepTask bool, resume *state.Resume) (*state.Record, error) {
	rec, err := w.Get(name)
	if err != nil {
		return nil, err
	}
	if err := w.canRestart(rec, prompt); err != nil {
		return nil, err
	}
	if prof, ok := w.Tools[rec.Tool]; ok {
		// Settings an older owt wrote (naming its owt-hook, or owt where it
		// was) get this owt's hook commands before the agent starts.
		if _, err := hook.Of(w.Workspace).Renew(rec, prof); err != nil {
			w.Logf("%v", err)
		}
	}
	where, err := w.Locate(rec)
	if err != nil {
		return nil, err
	}
	if where.Place == workspace.Elsewhere {
		return nil, fmt.Errorf("restart %s: it %w (%s)", name, workspace.ErrOtherServer, where.Socket)
	}
	old := rec
	respawn := where.Place == workspace.Here && rec.Pane != ""
	if rec.Swarm != nil && (!respawn || w.Tmux.CheckPaneIn(rec.Pane, where.SessionID) != nil) {
		// A worker's session is its host's: never made anew for it.
		return nil, fmt.Errorf("restart %s: its window is gone; 'owt swarm stop %s' ends the swarm, and 'owt swarm start' starts a new one", name, rec.Swarm.Host)
	}
	if rec, err = w.renewRecord(name, prompt, respawn, keepTask, resume); err != nil {
		return nil, err
	}
	if respawn {
		// Only the agent's pane starts again: windows the user opened in
		// its session, and their programs, stay.
		if err := w.Tmux.RespawnPane(rec.Pane, rec.Path, w.sessionEnv(rec), []string{w.Self, "_run"}); err == nil {
			status.Publish(&w.Ledger, rec)
			w.startMonitor()
			return rec, nil
		}
		// The pane is gone (its window was closed): a new session.
		if rec, err = w.renewRecord(name, prompt, false, keepTask, resume); err != nil {
			return nil, err
		}
		if err := w.killSessionOf(old); err != nil {
			w.markRestartFailed(name)
			return nil, fmt.Errorf("restart %s: %w", name, err)
		}
	}
	return w.startAgain(name, rec)
}

// startAgain starts rec's agent (its record renewed, its old session
// gone) in a new session and records it; a failure marks the restart
// failed, and a session made before the record could be saved is killed.
func (w *Worktrees) startAgain(name string, rec *state.Record) (*state.Record, error) {
	sv, err := w.Tmux.Survey()
	if err != nil {
		w.markRestartFailed(name)
		return nil, err
	}
	created, err := w.startSession(rec, w.sessionSize(sv), nil, sv.ClientNames())
	if err != nil {
		w.markRestartFailed(name)
		if strings.Contains(err.Error(), "duplicate session") {
			return nil, fmt.Errorf("restart %s: create tmux session %s: %s", name, rec.Session, duplicateSession(rec.Session))
		}
		return nil, fmt.Errorf("restart %s: create tmux session %s: %w", name, rec.Session, err)
	}
	err = w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		cur.SessionID, cur.Pane, cur.Session = created.SessionID, created.PaneID, created.SessionName
		cur.Socket = w.Tmux.ServerSocket()
		cur.Server = created.Server
		rec = cur
		return nil
	})
	if err != nil {
		_ = w.Tmux.KillSession(created.SessionID)
		w.markRestartFailed(name)
		return nil, fmt.Errorf("restart %s: save record: %w", name, err)
	}
	status.Publish(&w.Ledger, rec)
	w.startMonitor()
	return rec, nil
}

// canRestart checks, before anything changes, that the record is whole,
// has an agent owt knows, and its worktree is there.
func (w *Worktrees) canRestart(rec *state.Record, prompt string) error {
	switch {
	case strings.TrimSpace(prompt) == "":
		return ErrEmptyTask
	case CreateStateOf(rec) != Created:
		return fmt.Errorf("%s is not fully created; 'owt doctor' says why", rec.Name)
	case rec.NoAgent:
		return fmt.Errorf("%s runs no agent", rec.Name)
	}
	if _, ok := w.Tools[rec.Tool]; !ok {
		return fmt.Errorf("%s: unknown tool %q", rec.Name, rec.Tool)
	}
	if _, err := os.Stat(rec.Path); err != nil {
		return fmt.Errorf("%s: its worktree %s is gone", rec.Name, rec.Path)
	}
	return w.Tmux.Available()
}

// renewRecord gives the record its new task and a fresh agent status: no
// session yet, starting, nothing the old agent said (owt done, exit code,
// turn error) carried over. A restart that does not resume starts a new
// conversation: the old session id is forgotten (its hooks name the new
// one).
func (w *Worktrees) renewRecord(name, prompt string, keepPane, keepTask bool, resume *state.Resume) (*state.Record, error) {
	var rec *state.Record
	err := w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		now := w.Now()
		if keepTask {
			cur.Prompt = prompt // the runner starts the agent with it
		} else {
			cur.Task, cur.Prompt = prompt, "" // the new prompt is sent as it is
		}
		if !keepPane {
			cur.SessionID, cur.Pane = "", ""
		}
		cur.Done, cur.ExitCode, cur.TurnError, cur.WaitingFor, cur.Interrupted = nil, nil, untrusted.Untrusted{}, "", false
		cur.TaskPending = false // the runner marks it again when it starts the tool with its task
		cur.Resume = nil
		if resume != nil {
			r := *resume
			cur.Resume = &r
		} else {
			cur.AgentSession = ""
		}
		cur.SetStatus(state.Starting, state.FromOwt, now)
		cur.EventAt = now
		rec = cur
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("restart %s: save record: %w", name, err)
	}
	return rec, nil
}

// markRestartFailed leaves a record whose new session did not start
// saying its agent is not running, rather than "starting" forever.
func (w *Worktrees) markRestartFailed(name string) {
	_ = w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[name]
		if !ok || cur.SessionID != "" {
			return state.ErrNoChange
		}
		cur.SetStatus(state.Exited, state.FromOwt, w.Now())
		return nil
	})
}

// PaneTail is the last n lines of the agent's pane (history included), if
// owt can prove the record's session is its own; "" when it is gone.
func (w *Worktrees) PaneTail(rec *state.Record, n int) (string, error) {
	loc, err := workspace.ListLocator(w.Tmux)
	if err != nil {
		return "", err
	}
	where := loc.Locate(rec)
	if where.Place == workspace.Gone || rec.Pane == "" {
		return "", nil
	}
	out, err := loc.ClientFor(where).CaptureLast(rec.Pane, n)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(out, " \n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}

// ErrLeftAlone marks an interrupted create owt will not undo by itself:
// its worktree holds someone's work, or a session owt cannot prove its own.
var ErrLeftAlone = errors.New("left alone")

// SettleInterruptedCreate finishes or undoes the create of the record
// called name that was cut off, as 'owt doctor --fix' would: a session it
// had started is adopted (the record is returned, whole), else what it
// left is removed (nil, nil). A create still in progress, or one whose
// remains hold work, is ErrLeftAlone with the reason.
func (w *Worktrees) SettleInterruptedCreate(name string) (*state.Record, error) {
	rec, err := w.Get(name)
	if err != nil {
		return nil, err
	}
	switch CreateStateOf(rec) {
	case Created:
		return rec, nil
	case InProgress:
		return nil, fmt.Errorf("%s: %w: owt new is creating it now", name, ErrLeftAlone)
	}
	var rep DoctorReport
	w.doctorInterruptedCreate(rec, true, &rep)
	if len(rep.Findings) > 0 && !rep.Findings[0].Fixed {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrLeftAlone, strings.TrimPrefix(rep.Findings[0].Action, "left alone: "))
	}
	rec, err = w.Get(name)
	if errors.Is(err, state.ErrUnknownName) {
		return nil, nil
	}
	return rec, err
}
