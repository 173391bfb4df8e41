package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// CreateState says how far the create of a record got.
type CreateState int

const (
	// Created: owt new finished; the record is whole.
	Created CreateState = iota
	// InProgress: an owt new process is creating it now.
	InProgress
	// Interrupted: the owt new that made the record died half-way (kill -9,
	// a crash, a reboot). What it left holds nothing of anyone's.
	Interrupted
)

// CreateStateOf tells whether r's create finished, runs, or was cut off.
func CreateStateOf(r *state.Record) CreateState {
	if !r.Creating {
		return Created
	}
	if state.IsHeld(state.CreateLock(r.Repo, r.Name)) {
		return InProgress
	}
	return Interrupted
}

// beingCreated reports whether an owt new is creating the worktree called
// name in this repo right now.
func (w *Worktrees) beingCreated(name string) bool {
	return name != "" && state.IsHeld(state.CreateLock(w.Repo.Root, name))
}

// doctorInterruptedCreate reports a record whose create is running or was
// cut off, and with fix undoes an interrupted one: the branch, worktree and
// record it left. It reports whether r was such a record.
//
// Nothing of the user's can be in them: the agent starts in the session,
// and a create that recorded its session is not Creating any more. The one
// case owt leaves to the user is a session that did start (owt new died
// between starting it and recording it): the agent may have begun.
func (w *Worktrees) doctorInterruptedCreate(r *state.Record, fix bool, rep *DoctorReport) bool {
	switch CreateStateOf(r) {
	case Created:
		return false
	case InProgress:
		return true // owt new is working on it: not a problem, not ours to touch
	}
	f := Finding{Kind: InterruptedCreate, Name: r.Name,
		Detail: fmt.Sprintf("owt new %s was interrupted before it finished (branch %s, worktree %s)", r.Name, r.Branch, r.Path),
		Action: "--fix removes what it left (branch, worktree, record)"}
	// A session with r's name is what it may have started (its options may
	// not be set yet, so the name is all there is to go by). A create cut
	// off before git made its worktree started nothing: a session of that
	// name whose environment names another agent, or none, is someone
	// else's (owt new chooses the name before it has the server's
	// sessions); it is left as it is, and the record undone.
	switch s, ok, _ := w.Tmux.FindSession(r.Session); {
	case ok && !(w.cutBeforeWorktree(r) && w.someoneElses(s, r)):
		w.finishStartedCreate(r, s, fix, &f)
	case r.InPlace:
		w.forgetInPlaceCreate(r, fix, &f)
	default:
		if why := w.leaveCutOffCreate(r); why != "" {
			f.Action = why
		} else if fix {
			// r was read before these checks: an owt new of the name made
			// since (a retry) is not what they looked at (CutOffOnly).
			if err := w.Delete(r.Name, DeleteOptions{Force: true, CutOffOnly: true}); err != nil {
				f.Action = "could not undo it: " + err.Error()
			} else {
				f.Fixed, f.Action = true, "removed the branch, worktree and record it left"
			}
		}
	}
	rep.Findings = append(rep.Findings, f)
	return true
}

// finishStartedCreate is the finding of a cut-off create whose session s
// started: its agent may have begun. If s proves to be the one this
// create made, fix finishes the create instead of undoing it.
func (w *Worktrees) finishStartedCreate(r *state.Record, s tmux.Session, fix bool, f *Finding) {
	if !w.madeFor(s, r) {
		f.Action = fmt.Sprintf("left alone: a session %s (%s) has its name, but owt cannot tell it is the one it started; look at it, then 'owt delete --force %s'", s.Name, s.ID, r.Name)
	} else if f.Action = fmt.Sprintf("--fix finishes it: its session %s (%s) had started", s.Name, s.ID); fix {
		if err := w.adopt(r, s); err != nil {
			f.Action = "could not finish it: " + err.Error()
		} else {
			f.Fixed, f.Action = true, fmt.Sprintf("finished it: its session %s (%s) is its own now", s.Name, s.ID)
		}
	}
}

// forgetInPlaceCreate is the finding of a cut-off in-place create. The
// checkout is the user's: its undo forgets the record and takes owt's
// hook settings out, and the branch stays checked out.
func (w *Worktrees) forgetInPlaceCreate(r *state.Record, fix bool, f *Finding) {
	f.Detail = fmt.Sprintf("owt new --in-place %s was interrupted before it finished (branch %s in your checkout %s)", r.Name, r.Branch, r.Path)
	f.Action = "--fix forgets it; your checkout and its branch stay"
	if fix {
		if err := w.Delete(r.Name, DeleteOptions{}); err != nil {
			f.Action = "could not forget it: " + err.Error()
		} else {
			f.Fixed, f.Action = true, "forgot it; "+InPlaceStays(r)
		}
	}
}

// leaveCutOffCreate says why what a cut-off create left is not to be
// undone ("" when it may be): commits of its own on its branch, a git
// still checking it out, files someone wrote in its worktree.
func (w *Worktrees) leaveCutOffCreate(r *state.Record) string {
	// Its own commits are those beyond where it was made: the base commit
	// (a host's base branch may lag behind the one it was sent).
	from := r.BaseCommit
	if from == "" {
		from = w.Repo.BaseRef(r.Base, r.BaseCommit)
	}
	if ahead, _, err := w.Repo.AheadBehind(from, git.BranchRef(r.Branch)); err == nil && ahead > 0 {
		return fmt.Sprintf("left alone: branch %s has %d commit(s) of its own; look at it, then 'owt delete --force %s'", r.Branch, ahead, r.Name)
	}
	// A git that outlived owt new (a large checkout) is still writing the
	// tree: those files are git's, not someone's work, and not to remove
	// from under it.
	if pid := w.gitAtWorkIn(r); pid != 0 {
		return fmt.Sprintf("left alone: git is still at work in it (pid %d, checking it out); the files there are git's; run owt doctor again once it is done", pid)
	}
	if files := w.userFilesIn(r); len(files) > 0 {
		return fmt.Sprintf("left alone: its worktree holds %d file(s) someone wrote since (%s); keep what you need, then 'owt delete --force %s'", len(files), untrusted.Some(files, workspace.ListedMax), r.Name)
	}
	return ""
}

// userFilesIn lists the files of an interrupted create's worktree that are
// new or changed: someone wrote them after it died. Files missing from it
// are not: a checkout cut short leaves them out. When git never finished
// the checkout, the files at paths of the tree it was checking out are
// git's (written whole or in part by it); only the others are someone's.
func (w *Worktrees) userFilesIn(r *state.Record) []string {
	if w.cutBeforeWorktree(r) {
		return nil // no one wrote there
	}
	if !checkoutFinished(w.Repo, r) {
		files, err := filesBeyondTree(w.Repo, r)
		if err != nil {
			return []string{"(cannot read it: " + err.Error() + ")"}
		}
		return files
	}
	var out []string
	work, err := WorkFiles(r)
	if err != nil {
		return []string{"(cannot read it: " + err.Error() + ")"}
	}
	for _, f := range work {
		if _, err := os.Lstat(filepath.Join(r.Path, filepath.FromSlash(f))); err == nil {
			out = append(out, f)
		}
	}
	edited, _ := EditedCopies(r)
	return append(out, edited...)
}

// gitAtWorkIn returns the pid of a git process still checking out r's
// worktree, or 0: the git worktree add that makes it (naming it on its
// command line), or a checkout-kind git (reset, checkout, switch,
// read-tree, restore: what worktree add runs) working inside it or its
// admin dir. Any other git there (the user's git log in a pager) is not
// the checkout. It reads Linux /proc; elsewhere it answers 0.
func (w *Worktrees) gitAtWorkIn(r *state.Record) int {
	dirs := realDirs([]string{r.Path, adminDir(w.Repo, r)})
	return findGit(func(proc string) bool {
		args := cmdline(proc)
		sub := gitSubcommand(args)
		adding := sub == "worktree" && slices.Contains(args, "add") && namesPath(args, append([]string{r.Path}, dirs...))
		return adding || (checkoutKinds[sub] && gitProcessIn(proc, dirs))
	})
}

// checkoutKinds are the git commands that write a worktree's tree.
var checkoutKinds = map[string]bool{"reset": true, "checkout": true, "switch": true, "read-tree": true, "restore": true}

// cmdline is the argument list of the process at /proc/PID.
func cmdline(proc string) []string {
	b, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// gitSubcommand is the command of a git argument list: the first argument
// after git's own options (-C DIR and -c KEY=VALUE take a value).
func gitSubcommand(args []string) string {
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "-c":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// adminDir is the worktree's own git dir (.git/worktrees/NAME), read from
// its .git file, else where git puts it.
func adminDir(repo git.Repo, r *state.Record) string {
	if b, err := os.ReadFile(filepath.Join(r.Path, ".git")); err == nil {
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			return d
		}
	}
	return filepath.Join(repo.CommonDir, "worktrees", filepath.Base(r.Path))
}

// checkoutFinished reports whether git finished checking out r's worktree:
// git writes the worktree's index once, after every file of the tree is
// written, so a checkout killed half-way leaves none (only index.lock).
func checkoutFinished(repo git.Repo, r *state.Record) bool {
	_, err := os.Stat(filepath.Join(adminDir(repo, r), "index"))
	return err == nil
}

// filesBeyondTree lists the files in r's worktree at paths the tree of its
// branch does not have: no checkout of that tree wrote them.
func filesBeyondTree(repo git.Repo, r *state.Record) ([]string, error) {
	tree, err := repo.TreePaths(git.BranchRef(r.Branch))
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(r.Path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.Path, p)
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && !tree[rel] {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// gitProcessWorkingIn returns the pid of a git process working in one of
// dirs (see gitProcessIn), or 0. It reads Linux /proc; elsewhere it
// answers 0.
func gitProcessWorkingIn(dirs []string) int {
	resolved := realDirs(dirs)
	return findGit(func(proc string) bool { return gitProcessIn(proc, resolved) })
}

// realDirs is dirs with symlinks resolved (each that resolves), as /proc
// shows a process's directories.
func realDirs(dirs []string) []string {
	resolved := make([]string, len(dirs))
	for i, d := range dirs {
		resolved[i] = d
		if real, err := filepath.EvalSymlinks(d); err == nil {
			resolved[i] = real
		}
	}
	return resolved
}

// findGit returns the pid of the first git process whose /proc/PID
// directory match accepts, or 0: the one scan of /proc both of doctor's
// questions about a running git share.
func findGit(match func(proc string) bool) int {
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range comms {
		b, err := os.ReadFile(c)
		if err != nil || strings.TrimSpace(string(b)) != "git" {
			continue
		}
		if proc := filepath.Dir(c); match(proc) {
			pid, _ := strconv.Atoi(filepath.Base(proc))
			return pid
		}
	}
	return 0
}

// namesPath reports whether a command line (see cmdline) has one of
// paths as an argument.
func namesPath(args, paths []string) bool {
	for _, arg := range args {
		for _, p := range paths {
			if arg != "" && filepath.Clean(arg) == p {
				return true
			}
		}
	}
	return false
}

// madeFor reports whether session s is the one the create of r started:
// its pane runs owt's runner, and the session's environment names r —
// its life too (a record from before lives has none): a session made for
// an earlier agent of the name, since deleted, is not r's.
func (w *Worktrees) madeFor(s tmux.Session, r *state.Record) bool {
	name, err1 := w.Tmux.SessionEnv(s.ID, "OWT_NAME")
	repo, err2 := w.Tmux.SessionEnv(s.ID, "OWT_REPO")
	if err1 != nil || err2 != nil || name != r.Name || repo != r.Repo {
		return false
	}
	if r.Life != "" {
		if life, err := w.Tmux.SessionEnv(s.ID, state.LifeEnv); err != nil || life != r.Life {
			return false
		}
	}
	panes, err := w.Tmux.Panes()
	if err != nil {
		return false
	}
	for _, p := range panes {
		if p.SessionID == s.ID && strings.Contains(p.StartCommand, "_run") {
			return true
		}
	}
	return false
}

// cutBeforeWorktree reports whether r's create was cut off before git
// made its worktree (an in-place one has the user's checkout).
func (w *Worktrees) cutBeforeWorktree(r *state.Record) bool {
	_, err := os.Lstat(r.Path)
	return !r.InPlace && errors.Is(err, fs.ErrNotExist)
}

// someoneElses reports whether session s is provably not one a create of
// r started: owt new gives its session OWT_NAME and OWT_REPO when it
// makes it, in the same tmux call, and s has other ones or none.
func (w *Worktrees) someoneElses(s tmux.Session, r *state.Record) bool {
	name, err1 := w.Tmux.SessionEnv(s.ID, "OWT_NAME")
	repo, err2 := w.Tmux.SessionEnv(s.ID, "OWT_REPO")
	return err1 == nil && err2 == nil && (name != r.Name || repo != r.Repo)
}

// adopt finishes an interrupted create whose session had started: the
// record gets the session's ids and server, as owt new would have written.
func (w *Worktrees) adopt(r *state.Record, s tmux.Session) error {
	panes, err := w.Tmux.Panes()
	if err != nil {
		return err
	}
	pane := ""
	for _, p := range panes {
		if p.SessionID == s.ID && strings.Contains(p.StartCommand, "_run") {
			pane = p.ID
		}
	}
	copied := w.CopiesIn(r.Path)
	return w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[r.Name]
		if !ok || !cur.Creating {
			return fmt.Errorf("its record changed meanwhile")
		}
		cur.SessionID, cur.Pane, cur.Session, cur.Server = s.ID, pane, s.Name, s.Server
		cur.Socket = w.Tmux.ServerSocket()
		cur.Copied = copied
		cur.Creating = false
		return nil
	})
}
