package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Bringing an agent back in its existing worktree after its session was
// lost (the tmux server died, the machine rebooted, systemd ended the
// user's processes): the tool is started on its own session, by the id
// its hooks named (or its session files hold), so the conversation goes
// on where it stopped and the task is not sent again. The runner checks
// that the tool took it; when it cannot (unknown id, no resume option, it
// exits), it starts the tool fresh with the task and an account of the
// work already in the worktree, and the record says so (state.Resume).

// ErrNotLost marks an agent whose session is still there: nothing to
// bring back.
var ErrNotLost = errors.New("its session is running")

// ErrExitedBefore marks an agent that had ended by itself before its
// session was lost: it is not started again.
var ErrExitedBefore = errors.New("its agent had exited by itself")

// Lost reports whether owt would bring the record's agent back: a whole
// record with an agent of its own (not a shell, not a swarm worker, whose
// window is its host's), its worktree on disk, its session gone from
// every tmux server owt can prove it ran on, and its agent not one that
// had ended by itself before (ExitedBefore).
func Lost(r *state.Record, where workspace.Where) bool {
	return CreateStateOf(r) == Created && !r.NoAgent && r.Swarm == nil && !ExitedBefore(r) &&
		where.Place == workspace.Gone && worktreeDirExists(r.Path)
}

// ExitedBefore reports whether the record's agent had ended by itself
// (you quit it; its runner saw its exit code) before its session went:
// owt does not start again an agent you stopped. One that went with its
// tmux server has no exit code (its runner went too).
func ExitedBefore(r *state.Record) bool {
	return r.Status == state.Exited && r.ExitCode != nil
}

// ResumePlan is what bringing an agent back would start it with.
type ResumePlan struct {
	// Session is the tool's session id to resume; "" when none is known.
	Session string
	// Fresh says why it would start fresh ("" = it resumes).
	Fresh string
	// Account is the work already in the worktree, as the agent is told
	// when it starts fresh.
	Account string
}

// PlanResume says how the record's agent would come back: on which of
// its tool's sessions, or fresh and why. It changes nothing.
func (w *Worktrees) PlanResume(r *state.Record) ResumePlan {
	p := ResumePlan{Session: r.AgentSession}
	prof, ok := w.Tools[r.Tool]
	switch {
	case p.Session != "" || !ok:
	case r.InPlace:
		// Its folder is the user's checkout: a session found there by
		// folder may be the user's own, never taken for the agent's.
	case prof.Hooks == "codex":
		// Codex's rollout files: the newest started in this worktree
		// since the agent was made (not an earlier agent's of its name).
		p.Session = usage.CodexSession(agent.CodexHome(), r.Path, r.CreatedAt, w.Now())
	case prof.CanResume() && !r.ReadOnly:
		// OpenCode: no hooks; it lists its sessions itself.
		id, err := prof.LatestSession(r.Path, r.CreatedAt)
		if err != nil {
			w.Logf("%s: %v", r.Name, err)
		}
		p.Session = id
	}
	if !state.ValidSessionID(p.Session) {
		p.Session = "" // not an id owt uses (see state.ValidSessionID)
	}
	switch {
	case !ok:
		p.Fresh = fmt.Sprintf("unknown tool %q", r.Tool)
	case !prof.CanResume():
		p.Fresh = r.Tool + " cannot resume a session by id"
	case r.ReadOnly:
		p.Fresh = "a read-only role starts fresh"
	case p.Session == "":
		p.Fresh = "no session id of " + r.Tool + " was recorded for it"
	}
	p.Account = w.workAccount(r)
	return p
}

// ResumeAgent brings back the agent of the record called name, whose
// session is lost, in its existing worktree: on its tool's own session,
// or fresh with task (the words it is told then, after an account of the
// work already there; "" = its recorded task). It holds the restart
// lock of the agent, so two at once start one agent: the second finds
// its session running (ErrNotLost, with the record). A deleted agent has
// no record and stays deleted (state.ErrUnknownName).
func (w *Worktrees) ResumeAgent(name, task string) (*state.Record, error) {
	unlock, err := state.LockRestart(w.Repo.Root, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := w.Get(name)
	if err != nil {
		return nil, err
	}
	where, err := w.Locate(rec)
	if err != nil {
		return nil, err
	}
	switch {
	case where.Place == workspace.Here:
		return rec, fmt.Errorf("%s: %w (%s)", name, ErrNotLost, rec.Session)
	case where.Place == workspace.Elsewhere:
		return rec, fmt.Errorf("%s %w (%s)", name, workspace.ErrOtherServer, where.Socket)
	case rec.Swarm != nil:
		return rec, fmt.Errorf("%s is a swarm worker: its window is its host's ('owt swarm start' starts a new swarm)", name)
	case rec.NoAgent:
		return rec, fmt.Errorf("%s runs no agent", name)
	case !worktreeDirExists(rec.Path):
		return rec, fmt.Errorf("%s: its worktree %s is gone", name, rec.Path)
	case ExitedBefore(rec):
		return rec, fmt.Errorf("%s: %w (code %d) before its session went", name, ErrExitedBefore, *rec.ExitCode)
	}
	if s, ok, _ := w.Tmux.FindSession(rec.Session); ok && w.madeFor(s, rec) {
		// A restart cut off between starting the session and recording
		// it (kill -9): the session is the agent's, running; it is
		// recorded, never started twice.
		if adopted, err := w.adoptRestarted(rec, s); err == nil {
			return adopted, fmt.Errorf("%s: %w (%s, recorded again)", name, ErrNotLost, s.Name)
		}
	}
	if task == "" {
		task = rec.Task
	}
	plan := w.PlanResume(rec)
	resume := &state.Resume{Outcome: state.ResumePending, Session: plan.Session, At: w.Now()}
	if plan.Fresh != "" {
		resume = &state.Resume{Outcome: state.ResumeFresh, Why: plan.Fresh, At: w.Now()}
	}
	rec, err = w.restart(name, freshPrompt(plan.Account, task), true, resume)
	if err != nil {
		return nil, err
	}
	_ = PublishLost(w.Tmux)
	return rec, nil
}

// freshPrompt is what an agent that could not resume its conversation
// starts with: what happened, the work already there, then its task.
func freshPrompt(account, task string) string {
	var b strings.Builder
	b.WriteString("owt started you again in this worktree: your session was lost (the tmux server or the machine went down), " +
		"and your earlier conversation could not be resumed. The work already here is kept.\n")
	b.WriteString(account)
	b.WriteString("Read git log and git status before you change anything, then go on.\n\nYour task:\n")
	b.WriteString(task)
	return b.String()
}

// accountMax is how many commits and how many uncommitted files an
// account lists.
const accountMax = 20

// workAccount is a short account of the work in r's worktree: its
// commits since its base, its uncommitted files.
func (w *Worktrees) workAccount(r *state.Record) string {
	var b strings.Builder
	base := r.BaseCommit
	if base == "" {
		base = r.Base
	}
	if base != "" && r.Branch != "" {
		commits, err := w.Repo.MessagesBetween(base, r.Branch, accountMax+1)
		switch {
		case err != nil:
		case len(commits) == 0:
			fmt.Fprintf(&b, "No commits on %s since %s yet.\n", r.Branch, r.Base)
		default:
			fmt.Fprintf(&b, "Commits on %s since %s (newest first):\n", r.Branch, r.Base)
			for i, c := range commits {
				if i == accountMax {
					b.WriteString("  …\n")
					break
				}
				fmt.Fprintf(&b, "  %.10s %s\n", c.Hash, oneLine(c.Subject))
			}
		}
	}
	files, err := git.DirtyFiles(r.Path)
	switch {
	case err != nil:
	case len(files) == 0:
		b.WriteString("No uncommitted files.\n")
	default:
		b.WriteString("Uncommitted files:\n")
		for i, f := range files {
			if i == accountMax {
				fmt.Fprintf(&b, "  … and %d more\n", len(files)-accountMax)
				break
			}
			fmt.Fprintf(&b, "  %s\n", oneLine(f))
		}
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// LostAgents are the records of every repository whose agents owt would
// bring back (Lost), by repository.
func LostAgents(tm *tmux.Client) ([]*state.Record, error) {
	stores, err := state.Stores()
	if err != nil {
		return nil, err
	}
	loc, err := workspace.ListLocator(tm)
	if err != nil {
		return nil, err
	}
	var out []*state.Record
	for _, s := range stores {
		f, err := s.Peek()
		if err != nil {
			continue
		}
		for _, r := range f.Sorted() {
			if Lost(r, loc.Locate(r)) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// PublishLost sets the status bar's restore mark (⟲ N) to the number of
// agents owt restore would bring back, here and on the hosts whose
// status stream is up (RemoteLost); none clears it.
func PublishLost(tm *tmux.Client) error {
	recs, err := LostAgents(tm)
	if err != nil {
		return err
	}
	if err := status.PublishRestore(tm, len(recs)+RemoteLost()); err != nil {
		return err
	}
	_ = tm.RefreshStatus() // the bar shows it now, not at the next status-interval
	return nil
}

// RemoteLost counts the agents of the hosts whose status stream is up
// that their owt would bring back (owt restore runs it there too).
func RemoteLost() int {
	n := 0
	for _, hs := range state.HostStatuses() {
		if hs.Reachable {
			n += state.LostCount(hs.Agents)
		}
	}
	return n
}

// refreshLostMark counts the agents to restore again while the bar shows
// some: one deleted no longer counts.
func (w *Worktrees) refreshLostMark() {
	if v, err := w.Tmux.ShowOption("", status.OptRestore); err == nil && v != "" {
		_ = PublishLost(w.Tmux)
	}
}

// adoptRestarted records s, the session a cut-off restart started for r
// (madeFor proved it), as its session: its ids and this server.
func (w *Worktrees) adoptRestarted(r *state.Record, s tmux.Session) (*state.Record, error) {
	panes, err := w.Tmux.Panes()
	if err != nil {
		return nil, err
	}
	pane := ""
	for _, p := range panes {
		if p.SessionID == s.ID && strings.Contains(p.StartCommand, "_run") {
			pane = p.ID
		}
	}
	var out *state.Record
	err = w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[r.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, r.Name)
		}
		cur.SessionID, cur.Pane, cur.Session, cur.Server = s.ID, pane, s.Name, s.Server
		cur.Socket = w.Tmux.ServerSocket()
		out = cur
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record session %s of %s: %w", s.Name, r.Name, err)
	}
	status.Publish(&w.Ledger, out)
	return out, nil
}
