package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Kinds of problems owt doctor finds.
const (
	SessionWithoutWorktree = "session-without-worktree"
	WorktreeWithoutSession = "worktree-without-session"
	RecordWithoutEither    = "record-without-either"
	SessionWithoutRecord   = "session-without-record"
	SessionOnOtherServer   = "session-on-other-server"
	InterruptedCreate      = "interrupted-create"
	WorktreeWithoutRecord  = "worktree-without-record"
	PrunableWorktree       = "prunable-worktree"
	BranchLeftBehind       = "branch-left-behind"
	StaleLock              = "stale-lock"
	MonitorNotRunning      = "monitor-not-running"
	CodexHookTimeouts      = "codex-hook-timeouts"
	StaleHookSettings      = "stale-hook-settings"
)

// staleLockAge is how old a git lock file must be before doctor calls it
// stale: git holds one for the length of a single command.
const staleLockAge = 10 * time.Minute

// Finding is one problem, and what --fix did about it or what to do.
type Finding struct {
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
	Detail string `json:"detail"`
	Fixed  bool   `json:"fixed"`
	Action string `json:"action,omitempty"`
}

// DoctorReport is what owt doctor found in one repository.
type DoctorReport struct {
	Repo    string `json:"repo"`
	Monitor string `json:"monitor"`
	// Checks are the preflight: what owt needs of this machine (Preflight).
	Checks   []Check   `json:"checks"`
	Findings []Finding `json:"findings"`
}

// Left are the findings still there after the run.
func (d DoctorReport) Left() []Finding {
	var out []Finding
	for _, f := range d.Findings {
		if !f.Fixed {
			out = append(out, f)
		}
	}
	return out
}

// ownedSession is a tmux session carrying owt's user options.
type ownedSession struct {
	ID, Session string
	Repo, Name  string // @owt-repo, @owt-name
	Life        string // @owt-life
}

// Doctor looks for what went out of step between owt's records, git and
// tmux. With fix it repairs what is safe — nothing that holds work is ever
// deleted — and says what it left.
func (w *Worktrees) Doctor(fix bool) (DoctorReport, error) {
	rep := DoctorReport{Repo: w.Repo.Root, Checks: w.Preflight(), Findings: []Finding{}}
	recs, err := w.Records()
	if err != nil {
		return rep, err
	}
	all, err := w.Tmux.Sessions()
	if err != nil && !errors.Is(err, tmux.ErrNotInstalled) {
		return rep, err
	}
	loc := workspace.NewLocator(w.Tmux, all)
	server := "" // this server run's identity; "" when none runs
	for _, s := range all {
		server = s.Server
	}
	owned, err := w.ownedSessions()
	if err != nil {
		return rep, err
	}
	wts, err := w.Repo.Worktrees()
	if err != nil {
		return rep, err
	}
	known := map[string]bool{} // session ids of records on this server
	for _, r := range recs {
		if r.Swarm != nil {
			w.doctorWorker(r, recs, fix, &rep) // shares its host's worktree and session
			continue
		}
		where := loc.Locate(r)
		if where.Place == workspace.Here {
			known[where.SessionID] = true
		}
		w.doctorRecord(r, where, server, fix, &rep)
		w.doctorHookSettings(r, fix, &rep)
	}
	for _, s := range owned {
		if s.Repo == w.Repo.Root && !known[s.ID] && !w.beingCreated(s.Name) {
			rep.Findings = append(rep.Findings, w.doctorStraySession(s, fix))
		}
	}
	w.doctorWorktrees(recs, wts, fix, &rep)
	w.doctorBranches(recs, fix, &rep)
	w.doctorLocks(fix, &rep)
	w.doctorCodexHooks(fix, &rep)
	w.doctorMonitor(fix, &rep)
	return rep, nil
}

// recreatedAction says what owt doctor --fix did for a lost session:
// why it holds a shell (shell: the reason), or that the agent started
// again, on its own conversation (resumes: the restart recorded one) or
// as its tool allows.
func recreatedAction(session, shell string, resumes bool) string {
	switch {
	case shell != "":
		return "recreated session " + session + " (a shell: " + shell + ")"
	case resumes:
		return "recreated session " + session + " and started its agent again on its own conversation ('owt list' says whether it resumed)"
	}
	return "recreated session " + session + " and started its agent again: on its own conversation if its tool can resume it, else fresh with an account of the work in its worktree ('owt list' says which)"
}

// doctorRecord checks that a record has both its worktree and its session.
// A session on another tmux server that still runs is that server's: it
// is neither recreated here nor killed.
func (w *Worktrees) doctorRecord(r *state.Record, where workspace.Where, server string, fix bool, rep *DoctorReport) {
	if w.doctorInterruptedCreate(r, fix, rep) {
		return
	}
	hasSession := where.Place != workspace.Gone
	hasWorktree := worktreeDirExists(r.Path)
	switch {
	case hasWorktree && hasSession:
		return
	case where.Place == workspace.Elsewhere:
		rep.Findings = append(rep.Findings, Finding{Kind: SessionOnOtherServer, Name: r.Name,
			Detail: fmt.Sprintf("session %s runs on another tmux server (%s) but its worktree %s is gone", r.Session, where.Socket, r.Path),
			Action: "left alone: run owt doctor on that server"})
	case hasWorktree:
		f := Finding{Kind: WorktreeWithoutSession, Name: r.Name,
			Detail: fmt.Sprintf("worktree %s has no tmux session (%s)", r.Path, r.Session),
			Action: "'owt attach " + r.Name + "' recreates it"}
		if serverRestarted(r, server) {
			f.Detail += ": the tmux server it ran on is gone (a reboot, or tmux was restarted)"
			f.Action = "'owt restore' brings back this repository's agents, each on its own conversation ('owt restore --all': every repository's)"
		}
		if fix {
			shell := w.shellOnly(r) // before: the record says exited after
			if _, err := w.EnsureSession(r); err != nil {
				f.Action = "could not recreate the session: " + err.Error()
			} else {
				f.Fixed, f.Action = true, recreatedAction(r.Session, shell, r.Resume != nil)
			}
		}
		rep.Findings = append(rep.Findings, f)
	case hasSession:
		f := Finding{Kind: SessionWithoutWorktree, Name: r.Name,
			Detail: fmt.Sprintf("session %s is running but its worktree %s is gone", r.Session, r.Path),
			Action: "--fix kills the session and forgets the worktree"}
		if fix {
			if err := w.Store.CheckWritable(); err != nil {
				f.Action = "left the session alone: " + err.Error()
			} else if err := w.Tmux.KillSession(where.SessionID); err != nil {
				f.Action = "could not kill the session: " + err.Error()
			} else {
				f.Fixed, f.Action = w.forget(r, rep)
				f.Action = "killed the session; " + f.Action
			}
		}
		rep.Findings = append(rep.Findings, f)
	default:
		f := Finding{Kind: RecordWithoutEither, Name: r.Name,
			Detail: fmt.Sprintf("neither worktree %s nor session %s exists", r.Path, r.Session),
			Action: "--fix forgets it"}
		if fix {
			f.Fixed, f.Action = w.forget(r, rep)
		}
		rep.Findings = append(rep.Findings, f)
	}
}

// serverRestarted reports whether r's session was made on a tmux server
// run that is gone (server: this server run's identity, "" when none
// runs): after a reboot owt restore, not owt attach, brings its agent
// back on its conversation. A shell without an agent has nothing to
// restore.
func serverRestarted(r *state.Record, server string) bool {
	return !r.NoAgent && r.Server != "" && r.Server != server
}

// forget drops the record of a worktree whose folder is gone, makes git
// forget the worktree, and deletes its branch when every commit of it is in
// its base. A branch with other commits is kept and reported.
func (w *Worktrees) forget(r *state.Record, rep *DoctorReport) (bool, string) {
	// The record goes first: a record that stays is still a finding, and
	// the branch it names must then stay with it.
	if err := w.dropRecordOf(r); err != nil {
		return false, err.Error()
	}
	_ = status.PublishSummaryLocked(w.Tmux)
	if err := w.Repo.PruneWorktrees(); err != nil {
		return true, "forgot it; " + err.Error()
	}
	action := "forgot it"
	if r.InPlace {
		return true, action + "; its branch " + r.Branch + " is yours and stays" // never owt's to delete
	}
	if w.Repo.BranchExists(r.Branch) {
		base := w.Repo.BaseRef(r.Base, r.BaseCommit)
		ahead, _, err := w.Repo.AheadBehind(base, git.BranchRef(r.Branch))
		switch {
		case err != nil:
			action += "; kept branch " + r.Branch + " (" + err.Error() + ")"
		case ahead > 0:
			action += fmt.Sprintf("; kept branch %s: it has %d commit(s) not in %s", r.Branch, ahead, r.Base)
			rep.Findings = append(rep.Findings, Finding{Kind: BranchLeftBehind, Name: r.Branch,
				Detail: fmt.Sprintf("branch %s has no worktree and %d commit(s) not in %s", r.Branch, ahead, r.Base),
				Action: "merge it, or 'git branch -D " + r.Branch + "' to drop it"})
		default:
			if err := w.Repo.DeleteBranch(r.Branch, true); err != nil {
				action += "; kept branch " + r.Branch + " (" + err.Error() + ")"
			} else {
				action += "; deleted branch " + r.Branch + " (all of it is in " + r.Base + ")"
			}
		}
	}
	return true, action
}

// doctorStraySession reports a session carrying owt's options for this
// repo that no record owns. Options are anyone's to set, so they prove
// nothing: owt never kills such a session, it only says it is there —
// unless it carries the life of an agent owt deleted (a random id only
// owt's records held): owt made it for that agent (a restart that
// crossed the delete), and --fix ends it.
func (w *Worktrees) doctorStraySession(s ownedSession, fix bool) Finding {
	if state.DeletedLife(w.Repo.Root, s.Life) {
		f := Finding{Kind: SessionWithoutRecord, Name: s.Session,
			Detail: fmt.Sprintf("tmux session %s (%s) is one owt made for %s, which was deleted", s.Session, s.ID, s.Name),
			Action: "--fix ends it"}
		if fix {
			if err := w.Tmux.KillSession(s.ID); err != nil {
				f.Action = "could not end it: " + err.Error()
			} else {
				f.Fixed, f.Action = true, "ended it"
			}
		}
		return f
	}
	return Finding{Kind: SessionWithoutRecord, Name: s.Session,
		Detail: fmt.Sprintf("tmux session %s (%s) carries owt's options for this repo but no worktree record owns it", s.Session, s.ID),
		Action: "left alone: owt only kills sessions its records prove it made; kill it yourself if it is not yours to keep (tmux kill-session -t " + s.ID + ")"}
}

// doctorWorktrees finds git worktrees in owt's folder that no record knows,
// and git's entries for worktree folders deleted by hand.
func (w *Worktrees) doctorWorktrees(recs []*state.Record, wts []git.Worktree, fix bool, rep *DoctorReport) {
	byPath := map[string]bool{}
	for _, r := range recs {
		byPath[r.Path] = true
	}
	var prunable []string
	for i, wt := range wts {
		if i == 0 || wt.Bare || byPath[wt.Path] {
			continue
		}
		if wt.Prunable {
			prunable = append(prunable, wt.Path)
			continue
		}
		if w.WorktreePath(filepath.Base(wt.Path)) != wt.Path {
			continue // the user's own worktree, not made by owt
		}
		rep.Findings = append(rep.Findings, Finding{Kind: WorktreeWithoutRecord, Name: filepath.Base(wt.Path),
			Detail: fmt.Sprintf("worktree %s (branch %s) is in owt's folder but owt has no record of it", wt.Path, wt.Branch),
			Action: "left alone: check it, then 'git worktree remove " + wt.Path + "'"})
	}
	if len(prunable) == 0 {
		return
	}
	f := Finding{Kind: PrunableWorktree, Detail: "git still lists deleted worktree folder(s): " + untrusted.Some(prunable, workspace.ListedMax),
		Action: "--fix runs git worktree prune"}
	if fix {
		if err := w.Repo.PruneWorktrees(); err != nil {
			f.Action = err.Error()
		} else {
			f.Fixed, f.Action = true, "ran git worktree prune"
		}
	}
	rep.Findings = append(rep.Findings, f)
}

// doctorHookSettings finds a worktree whose hook settings run owt's hooks
// with a command this owt does not write (an older owt's owt-hook, owt at
// another path); --fix writes this owt's commands (a restart does too).
func (w *Worktrees) doctorHookSettings(r *state.Record, fix bool, rep *DoctorReport) {
	prof, ok := w.Tools[r.Tool]
	if !ok || !worktreeDirExists(r.Path) {
		return
	}
	path, stale := hook.Of(w.Workspace).StaleHooks(r, prof)
	if !stale {
		return
	}
	f := Finding{Kind: StaleHookSettings, Name: r.Name,
		Detail: path + " runs owt's hooks with a command an older owt wrote",
		Action: "--fix (or restarting the agent) writes this owt's hook commands"}
	if fix {
		if _, err := hook.Of(w.Workspace).Renew(r, prof); err != nil {
			f.Action = err.Error()
		} else {
			f.Fixed, f.Action = true, "wrote this owt's hook commands"
		}
	}
	rep.Findings = append(rep.Findings, f)
}

// doctorCodexHooks finds owt's hooks in the user's Codex hooks file with
// timeouts Codex clamps (and warns about at every start); --fix writes
// them again as owt tools codex-hooks does, the user's own hooks kept.
func (w *Worktrees) doctorCodexHooks(fix bool, rep *DoctorReport) {
	data, err := os.ReadFile(agent.CodexHooksPath())
	if err != nil {
		return
	}
	over := agent.CodexHooksOverCaps(data)
	stale := agent.StaleOwtHooks(data, "codex", w.Self)
	if len(over) == 0 && !stale {
		return
	}
	f := Finding{Kind: CodexHookTimeouts, Name: agent.CodexHooksPath(),
		Detail: "owt's " + strings.Join(over, ", ") + " hook timeouts are over what Codex accepts: it clamps them and warns at every start",
		Action: "--fix (or owt tools codex-hooks) writes them again; then trust them again in Codex"}
	if len(over) == 0 {
		f.Kind, f.Detail = StaleHookSettings, "owt's hooks run with a command an older owt wrote"
	}
	if fix {
		if _, err := hook.InstallCodexHooks(w.Self); err != nil {
			f.Action = err.Error()
		} else {
			f.Fixed, f.Action = true, "wrote owt's hooks again; Codex asks you to trust them again"
		}
	}
	rep.Findings = append(rep.Findings, f)
}

// markOwtBranch marks branch as created by owt (see git.MarkOwtBranch).
// A failure is logged, not fatal: an unmarked branch is only ever left
// alone by owt doctor.
func (w *Worktrees) markOwtBranch(branch string) {
	if err := w.Repo.MarkOwtBranch(branch); err != nil {
		w.Logf("could not mark branch %s as owt's (owt doctor will leave it alone): %v", branch, err)
	}
}

// doctorBranches finds branches owt created (they carry its mark, see
// markOwtBranch) that no record and no worktree uses. Branches owt did
// not create are the user's, whatever their name, and never reported.
// --fix deletes the ones git itself agrees are merged (git branch -d),
// printing where they pointed.
func (w *Worktrees) doctorBranches(recs []*state.Record, fix bool, rep *DoctorReport) {
	used := map[string]bool{}
	for _, r := range recs {
		used[r.Branch] = true
	}
	for _, f := range rep.Findings {
		if f.Kind == BranchLeftBehind {
			used[f.Name] = true // already reported by forget
		}
	}
	branches, err := w.Repo.Branches()
	if err != nil {
		return
	}
	owned, err := w.Repo.OwtBranches()
	if err != nil {
		return
	}
	head, _ := git.CurrentBranch(w.Repo.Root)
	var names []string
	for b := range branches {
		if !used[b] && owned[b] {
			if _, out, err := w.Repo.CheckedOutAt(b); err == nil && !out {
				names = append(names, b)
			}
		}
	}
	sort.Strings(names)
	for _, b := range names {
		f := Finding{Kind: BranchLeftBehind, Name: b}
		sha, _ := w.Repo.ResolveCommit("refs/heads/" + b)
		merged := head != "" && w.Repo.IsAncestor(sha, "refs/heads/"+head)
		if !merged {
			f.Detail = fmt.Sprintf("branch %s has no worktree and holds commits %s lacks", b, orHEAD(head))
			f.Action = "left alone: merge it, or 'git branch -D " + b + "' to drop it"
			rep.Findings = append(rep.Findings, f)
			continue
		}
		f.Detail = fmt.Sprintf("branch %s has no worktree and is merged into %s", b, head)
		f.Action = "--fix deletes it"
		if fix {
			if err := w.Repo.DeleteBranch(b, false); err != nil {
				f.Action = "could not delete it: " + err.Error()
			} else {
				f.Fixed, f.Action = true, fmt.Sprintf("deleted it (it was at %.12s: 'git branch %s %.12s' restores it)", sha, b, sha)
			}
		}
		rep.Findings = append(rep.Findings, f)
	}
}

func orHEAD(b string) string {
	if b == "" {
		return "HEAD"
	}
	return b
}

// doctorLocks finds git lock files older than any git command runs. They
// are removed with --fix only while no git process works in this
// repository.
func (w *Worktrees) doctorLocks(fix bool, rep *DoctorReport) {
	locks, err := w.Repo.LockFiles()
	if err != nil || len(locks) == 0 {
		return
	}
	now := w.Now()
	for _, l := range locks {
		age := now.Sub(l.ModTime)
		if age < staleLockAge {
			continue
		}
		f := Finding{Kind: StaleLock, Name: l.Path,
			Detail: fmt.Sprintf("git lock %s is %s old: a git process died holding it", l.Path, age.Round(time.Minute)),
			Action: "--fix removes it while no git process works in this repository"}
		if fix {
			if pid := w.gitRunningHere(); pid != 0 {
				f.Action = fmt.Sprintf("left: a git process (pid %d) is working in this repository now; run owt doctor --fix again later", pid)
			} else if err := os.Remove(l.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				f.Action = "could not remove it: " + err.Error()
			} else {
				f.Fixed, f.Action = true, "removed it"
			}
		}
		rep.Findings = append(rep.Findings, f)
	}
}

// gitRunningHere returns the pid of a git process working in this
// repository — its working directory inside the main checkout, a linked
// worktree or the git dir, or its GIT_DIR pointing there — or 0. git
// processes elsewhere on the machine do not hold this repository's locks.
// It reads Linux /proc; elsewhere it answers 0 and the age rule alone
// decides.
func (w *Worktrees) gitRunningHere() int {
	dirs := []string{w.Repo.Root, w.Repo.CommonDir}
	if wts, err := w.Repo.Worktrees(); err == nil {
		for _, wt := range wts {
			dirs = append(dirs, wt.Path)
		}
	}
	return gitProcessWorkingIn(dirs)
}

// gitProcessIn reports whether the process at /proc/PID works in one of
// dirs: by its working directory (git -C changes into the directory) or by
// GIT_DIR / GIT_WORK_TREE / GIT_COMMON_DIR in its environment. A process
// owt may not inspect (another user's) is not counted.
func gitProcessIn(proc string, dirs []string) bool {
	var paths []string
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil {
		paths = append(paths, cwd)
	}
	if env, err := os.ReadFile(filepath.Join(proc, "environ")); err == nil {
		for _, kv := range strings.Split(string(env), "\x00") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || v == "" || (k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_COMMON_DIR") {
				continue
			}
			if !filepath.IsAbs(v) {
				if len(paths) == 0 {
					continue
				}
				v = filepath.Join(paths[0], v)
			}
			if real, err := filepath.EvalSymlinks(v); err == nil {
				v = real
			}
			paths = append(paths, v)
		}
	}
	for _, p := range paths {
		for _, d := range dirs {
			if insideDir(p, d) {
				return true
			}
		}
	}
	return false
}

// insideDir reports whether path is dir or below it.
func insideDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// doctorMonitor checks the status monitor of this tmux server runs while
// owt sessions exist, and starts it with --fix.
func (w *Worktrees) doctorMonitor(fix bool, rep *DoctorReport) {
	socket := w.Tmux.ServerSocket()
	if !w.Tmux.Running() {
		// No server: its monitor, if still there, is on its way out.
		rep.Monitor = "not running"
		return
	}
	if daemon.Running(socket) {
		rep.Monitor = fmt.Sprintf("running (pid %d)", daemon.PID(socket))
		return
	}
	rep.Monitor = "not running"
	sessions, err := w.ownedSessions()
	if err != nil || len(sessions) == 0 {
		return // no agent session on this server: nothing to watch
	}
	f := Finding{Kind: MonitorNotRunning, Detail: "the status monitor of this tmux server is not running: statuses of tools without hooks go stale",
		Action: "--fix starts it"}
	if fix {
		w.startMonitor()
		if doctorWaitFor(3*time.Second, func() bool { return daemon.Running(socket) }) {
			rep.Monitor = fmt.Sprintf("running (pid %d)", daemon.PID(socket))
			f.Fixed, f.Action = true, "started it"
		} else {
			f.Action = "could not start it; see owt's log"
		}
	}
	rep.Findings = append(rep.Findings, f)
}

func doctorWaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ownedSessions lists the sessions owt marked with its user options.
func (w *Worktrees) ownedSessions() ([]ownedSession, error) {
	const sep = "\x1f"
	out, err := w.Tmux.Run("list-sessions", "-F", strings.Join([]string{"#{session_id}", "#{session_name}", "#{@owt-repo}", "#{@owt-name}", "#{@owt-life}"}, sep))
	if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNotInstalled) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ss []ownedSession
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, sep)
		if len(f) != 5 || f[2] == "" {
			continue
		}
		ss = append(ss, ownedSession{ID: f[0], Session: f[1], Repo: f[2], Name: f[3], Life: f[4]})
	}
	return ss, nil
}

func worktreeDirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
