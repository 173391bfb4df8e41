// Package resolve hands a predicted merge conflict to the agent that made
// it, in the agent's own worktree (owt resolve): owt merges the base (or a
// run's into) into the branch there without committing, so git leaves the
// conflict markers in the files; it tells the agent which files and hunks
// conflict and what to do (resolve, run the tests, commit to finish the
// merge), starting the agent again with that prompt if it exited; and once
// the agent's turn is over it checks the work (Verify) before anything
// calls it ready to ship.
//
// Its rules: the user's checkout is never merged into (an in-place agent
// works there: refused); owt never commits the merge, never resolves a
// hunk, never aborts or resets what the agent did; a worktree with
// uncommitted work, or an agent mid-turn, is refused with nothing changed;
// and "ready" means owt looked: no conflict marker left, the merge
// committed (no MERGE_HEAD, the merged commit in the branch), merge-tree
// clean against the target as it is now, the project's checks passing.
package resolve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// ErrNoConflict is returned (wrapped) when git predicts no conflict:
// nothing was changed.
var ErrNoConflict = errors.New("no conflict predicted")

// ErrRefused is returned (wrapped) when owt will not start a resolve
// there (the user's checkout, uncommitted work, an agent mid-turn …):
// nothing was changed.
var ErrRefused = errors.New("refused")

// Options say what to merge in and who asked.
type Options struct {
	// Into is the branch merged into the agent's branch; its recorded
	// base when empty.
	Into string
	// Run and Task name the run task whose landing conflicted.
	Run, Task string
}

// Started is what Start did.
type Started struct {
	Name   string   `json:"name"`
	Branch string   `json:"branch"`
	Target string   `json:"target"`
	Onto   string   `json:"onto"`
	Files  []string `json:"files"`
	// How the agent was told: "typed" into its prompt, or "restarted"
	// with it (it had exited); "" when it was not (Untold says why).
	How    string `json:"how,omitempty"`
	Untold string `json:"untold,omitempty"`
	// Again is set when the merge was already left in the worktree and
	// only the telling was done now.
	Again bool `json:"again,omitempty"`
}

// Start merges the target into rec's branch in its worktree, leaving the
// conflicts, records it and tells the agent. The merge and the record
// stand even when the telling fails (Untold): 'owt resolve NAME' again
// tells it then.
func Start(w *workspace.Workspace, rec *state.Record, o Options) (Started, error) {
	out := Started{Name: rec.Name, Branch: rec.Branch, Target: o.Into}
	if out.Target == "" {
		out.Target = rec.Base
	}
	if err := refuse(w, rec, out.Target); err != nil {
		return out, err
	}
	if r := rec.Resolve; r != nil && !r.Told {
		if op, _ := git.OperationInProgress(rec.Path); op == "merge" {
			// The merge is there from an earlier owt resolve whose message
			// did not get through: tell it now.
			out.Target, out.Onto, out.Files, out.Again = r.Target, r.Onto, r.Files, true
			out.How, out.Untold = tell(w, rec, Prompt(rec, r.Target, r.Onto, r.Files))
			return out, record(w, rec.Name, r.At, func(cur *state.Resolving) { cur.Told, cur.Untold = out.How != "", out.Untold })
		}
	}
	if op, err := git.OperationInProgress(rec.Path); err != nil {
		return out, err
	} else if op != "" {
		if rec.Resolve != nil && op == "merge" {
			return out, fmt.Errorf("%s: %w: its resolve of the conflicts with %s is under way (a merge is in progress in %s); 'owt resolve %s --status' says how it stands",
				rec.Name, ErrRefused, rec.Resolve.Target, rec.Path, rec.Name)
		}
		return out, fmt.Errorf("%s: %w: a %s is in progress in %s; finish or abort it there first; nothing was changed", rec.Name, ErrRefused, op, rec.Path)
	}
	work, err := lifecycle.WorkFiles(rec)
	if err != nil {
		return out, fmt.Errorf("check %s for uncommitted work: %w", rec.Name, err)
	}
	if len(work) > 0 {
		return out, fmt.Errorf("%s: %w: it has uncommitted work in %d file(s): %s; a merge there would mix owt's conflicts into it: commit them first (or ask the agent to); nothing was changed",
			rec.Name, ErrRefused, len(work), untrusted.Some(work, 5))
	}
	repo := w.Repo
	tips, err := repo.ResolveCommits([]string{git.BranchRef(rec.Branch), git.BranchRef(out.Target)})
	if err != nil {
		return out, fmt.Errorf("%s: read %s and %s: %w", rec.Name, rec.Branch, out.Target, err)
	}
	head, onto := tips[0], tips[1]
	out.Onto = onto
	mt, err := repo.MergeTree(head, onto)
	if err != nil {
		return out, fmt.Errorf("predict merging %s into %s: %w", out.Target, rec.Branch, err)
	}
	if mt.Clean() {
		return out, fmt.Errorf("%w between %s and %s: nothing to resolve, nothing was changed", ErrNoConflict, rec.Branch, out.Target)
	}
	msg := fmt.Sprintf("Merge branch '%s' into %s\n", out.Target, rec.Branch)
	files, err := git.StartMerge(rec.Path, onto, msg)
	if err != nil {
		return out, fmt.Errorf("%s: merge %s into %s in %s: %w", rec.Name, out.Target, rec.Branch, rec.Path, err)
	}
	if len(files) == 0 {
		// Predicted, then merged cleanly: not owt's to commit.
		if err := git.AbortMerge(rec.Path); err != nil {
			return out, err
		}
		return out, fmt.Errorf("%w: git merged %s into %s without a conflict after all; nothing was changed", ErrNoConflict, out.Target, rec.Branch)
	}
	out.Files = files
	res := &state.Resolving{Target: out.Target, Onto: onto, Head: head, Files: files, At: w.Now(), Run: o.Run, Task: o.Task}
	if err := w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[rec.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, rec.Name)
		}
		cur.Resolve = res
		return nil
	}); err != nil {
		// Unrecorded, the merge would be nobody's: taken back (the
		// worktree was clean, so it is as it was).
		return out, errors.Join(fmt.Errorf("%s: record the resolve: %w", rec.Name, err), git.AbortMerge(rec.Path))
	}
	out.How, out.Untold = tell(w, rec, Prompt(rec, out.Target, onto, files))
	return out, record(w, rec.Name, res.At, func(cur *state.Resolving) { cur.Told, cur.Untold = out.How != "", out.Untold })
}

// refuse says why no resolve may start in rec's worktree now: the user's
// checkout, a shell, a swarm worker, a missing worktree, HEAD off the
// branch, an agent mid-turn, no such target.
func refuse(w *workspace.Workspace, rec *state.Record, target string) error {
	switch {
	case rec.InPlace:
		return fmt.Errorf("%s: %w: it works in place, in your own checkout %s; owt never merges into your checkout: merge %s there yourself, or move the work to a worktree first; nothing was changed",
			rec.Name, ErrRefused, rec.Path, target)
	case rec.NoAgent:
		return fmt.Errorf("%s: %w: it runs no agent to resolve the conflicts (a shell made with --no-agent); 'owt sync %s --leave-conflicts' leaves them there for you; nothing was changed",
			rec.Name, ErrRefused, rec.Name)
	case rec.Swarm != nil:
		return fmt.Errorf("%s: %w: it is a worker of the swarm in %s: resolve %s; nothing was changed", rec.Name, ErrRefused, rec.Swarm.Host, rec.Swarm.Host)
	case !isDir(rec.Path):
		return fmt.Errorf("%s: %w: its worktree %s is missing; nothing was changed", rec.Name, ErrRefused, rec.Path)
	case target == rec.Branch:
		return fmt.Errorf("%s: %w: cannot merge %s into itself", rec.Name, ErrRefused, target)
	}
	if !w.Repo.BranchExists(target) {
		return fmt.Errorf("%s: %w: no branch %q to merge in; nothing was changed", rec.Name, ErrRefused, target)
	}
	if !w.Repo.BranchExists(rec.Branch) {
		return fmt.Errorf("%s: %w: its branch %s no longer exists", rec.Name, ErrRefused, rec.Branch)
	}
	if cur, err := git.CurrentBranch(rec.Path); err != nil {
		return fmt.Errorf("%s: %w", rec.Name, err)
	} else if cur != rec.Branch {
		return fmt.Errorf("%s: %w: HEAD in %s is not on %s; check it out first; nothing was changed", rec.Name, ErrRefused, rec.Path, rec.Branch)
	}
	if busy := busyNow(w, rec); busy != "" {
		return fmt.Errorf("%s: %w: its agent %s: a merge now would change its files mid-turn; nothing was changed; let its turn end (see 'owt status %s'), then resolve",
			rec.Name, ErrRefused, busy, rec.Name)
	}
	return nil
}

// busyNow is what rec's agent is in the middle of, by its record or its
// screen (the record lags it); "" when nothing.
func busyNow(w *workspace.Workspace, rec *state.Record) string {
	if busy := land.AgentBusy(rec); busy != "" {
		return busy
	}
	if rec.Status == state.Limited {
		// It cannot work before its limit resets: the conflicts would
		// sit in its worktree with nobody to resolve them.
		return "hit a " + rec.Limit.Why(time.Now())
	}
	return w.BusyOnScreen(rec)
}

// tell gives the agent the prompt: typed in when it runs, or as the first
// prompt of a new agent started there when it exited. how is "" when it
// did not get it, and untold says why.
func tell(w *workspace.Workspace, rec *state.Record, prompt string) (how, untold string) {
	cur, err := w.Get(rec.Name)
	if err != nil {
		return "", err.Error()
	}
	if cur.Status == state.Exited || w.CheckPane(cur) != nil {
		if _, err := lifecycle.Of(w).RestartWith(cur.Name, prompt); err != nil {
			return "", "starting its agent again: " + err.Error()
		}
		return "restarted", ""
	}
	if err := send.To(w, cur, untrusted.From(prompt), send.Options{}); err != nil {
		if errors.Is(err, workspace.ErrNotRunning) {
			if _, rerr := lifecycle.Of(w).RestartWith(cur.Name, prompt); rerr == nil {
				return "restarted", ""
			}
		}
		return "", err.Error()
	}
	return "typed", ""
}

// Settle takes an untold resolve whose merge is no longer in progress in
// rec's worktree (the agent, or the user, finished or aborted it) as
// handed over: owt's check says how it stands. It returns the record as
// it is now.
func Settle(w *workspace.Workspace, rec *state.Record) (*state.Record, error) {
	r := rec.Resolve
	if r == nil || r.Told {
		return rec, nil
	}
	if op, err := git.OperationInProgress(rec.Path); err != nil || op == "merge" {
		return rec, err
	}
	if err := record(w, rec.Name, r.At, func(cur *state.Resolving) { cur.Told, cur.Untold = true, "" }); err != nil {
		return rec, err
	}
	return w.Get(rec.Name)
}

// record changes the record's resolve, if it is still the one started at.
func record(w *workspace.Workspace, name string, at time.Time, fn func(*state.Resolving)) error {
	return w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[name]
		if !ok || cur.Resolve == nil || !cur.Resolve.At.Equal(at) {
			return state.ErrNoChange
		}
		fn(cur.Resolve)
		return nil
	})
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Verdict is owt's check of a resolve.
type Verdict struct {
	Name   string   `json:"name"`
	Target string   `json:"target"`
	Files  []string `json:"files"`
	// Ready: owt verified the work; Pending: the agent is still at it (its
	// turn is under way); else Why says what is wrong.
	Ready   bool   `json:"ready"`
	Pending bool   `json:"pending,omitempty"`
	Why     string `json:"why,omitempty"`
	Tip     string `json:"tip,omitempty"`
	Untold  string `json:"untold,omitempty"`
	Checked bool   `json:"checked,omitempty"` // the project's checks ran (and passed, when Ready)
}

// Line is the verdict for people, one line.
func (v Verdict) Line() string {
	switch {
	case v.Ready:
		s := fmt.Sprintf("%s: READY TO SHIP: the conflicts with %s are resolved and committed, no conflict marker left, it merges cleanly into %s", v.Name, v.Target, v.Target)
		if v.Checked {
			s += ", checks pass"
		}
		return s
	case v.Pending:
		return fmt.Sprintf("%s: resolving the conflicts with %s: %s", v.Name, v.Target, v.Why)
	}
	return fmt.Sprintf("%s: not ready: %s", v.Name, v.Why)
}

// Verify checks rec's resolve as things are now. It changes nothing
// but the project's checks' own output.
func Verify(w *workspace.Workspace, rec *state.Record) (Verdict, error) {
	r := rec.Resolve
	if r == nil {
		return Verdict{Name: rec.Name}, fmt.Errorf("%s: no resolve under way ('owt resolve %s' starts one when a conflict is predicted)", rec.Name, rec.Name)
	}
	v := Verdict{Name: rec.Name, Target: r.Target, Files: r.Files}
	if !r.Told {
		v.Untold = r.Untold
	}
	if busy := busyNow(w, rec); busy != "" {
		v.Pending, v.Why = true, "its agent "+busy
		return v, nil
	}
	if !r.Told {
		v.Why = fmt.Sprintf("the agent was not told (%s): 'owt resolve %s' tells it again", r.Untold, rec.Name)
		return v, nil
	}
	if !isDir(rec.Path) {
		v.Why = "its worktree " + rec.Path + " is missing"
		return v, nil
	}
	if op, err := git.OperationInProgress(rec.Path); err != nil {
		return v, err
	} else if op != "" {
		left, _ := git.UnmergedFiles(rec.Path)
		switch {
		case op == "merge" && len(left) > 0:
			v.Why = "the merge is not finished: conflicts left unresolved in " + untrusted.Some(left, 5)
		case op == "merge":
			v.Why = "the merge is not committed yet (MERGE_HEAD is still there): the agent must commit it"
		default:
			v.Why = "a " + op + " is in progress in its worktree"
		}
		return v, nil
	}
	if cur, err := git.CurrentBranch(rec.Path); err != nil {
		return v, err
	} else if cur != rec.Branch {
		v.Why = "HEAD in its worktree is not on " + rec.Branch
		return v, nil
	}
	tip, err := w.Repo.ResolveCommit(git.BranchRef(rec.Branch))
	if err != nil {
		return v, err
	}
	v.Tip = tip
	if !w.Repo.IsAncestor(r.Onto, tip) {
		v.Why = fmt.Sprintf("the merge of %s was not committed (%.12s is not in %s): it was aborted or undone", r.Target, r.Onto, rec.Branch)
		return v, nil
	}
	var committed, onDisk []string
	for _, f := range r.Files {
		data, ok, err := w.Repo.FileAt(tip, f)
		if err != nil {
			return v, err
		}
		if ok && git.HasConflictMarkers(data) {
			committed = append(committed, f)
		} else if disk, err := os.ReadFile(filepath.Join(rec.Path, f)); err == nil && git.HasConflictMarkers(disk) {
			onDisk = append(onDisk, f)
		}
	}
	switch {
	case len(committed) > 0:
		v.Why = "conflict markers left in " + untrusted.Some(committed, 5) + ", committed: the agent must resolve them"
		return v, nil
	case len(onDisk) > 0:
		v.Why = "conflict markers in the worktree's " + untrusted.Some(onDisk, 5) + " (not committed): the agent must resolve them"
		return v, nil
	}
	if dropped, err := droppedSide(w.Repo, r.Head, r.Onto, tip); err != nil {
		return v, err
	} else if len(dropped) > 0 {
		v.Why = fmt.Sprintf("its merge drops %s's changes to %s (the branch's own version kept whole, as 'git merge -s ours' or 'git checkout --ours' do): landing it would undo them; the agent must combine both sides ('owt merge %s' lands it as it is, if that is meant)", r.Target, untrusted.Some(dropped, 5), rec.Name)
		return v, nil
	}
	if w.Repo.BranchExists(r.Target) {
		now, err := w.Repo.ResolveCommit(git.BranchRef(r.Target))
		if err != nil {
			return v, err
		}
		mt, err := w.Repo.MergeTree(tip, now)
		if err != nil {
			return v, fmt.Errorf("predict merging %s into %s: %w", rec.Branch, r.Target, err)
		}
		if !mt.Clean() {
			v.Why = fmt.Sprintf("it conflicts with %s again (%s moved on since) in %s: 'owt resolve %s' once more", r.Target, r.Target, untrusted.Some(mt.Conflicts, 5), rec.Name)
			return v, nil
		}
	}
	if cmds := w.Config.Checks.Commands; len(cmds) > 0 {
		res := land.RunChecks(rec.Path, cmds, w.Config.Checks.Timeout.Duration)
		v.Checked = true
		if !res.Passed {
			v.Why = "checks fail: " + firstLine(res.Output)
			return v, nil
		}
	}
	v.Ready = true
	return v, nil
}

// droppedSide lists the files whose changes on the target (onto, since
// it forked from head) the branch's tip does not have because the merge
// kept the branch's own version of them whole: the file differs between
// head and onto, the target changed it, and tip has it exactly as head
// did. Landing such a tip would silently undo the target's work there;
// markers and merge-tree cannot see it (the merge is committed, clean).
// A file the tip does not have (renamed or removed on the branch) is not
// one. A record without head (made before owt kept it) is not checked.
func droppedSide(repo git.Repo, head, onto, tip string) ([]string, error) {
	if head == "" {
		return nil, nil
	}
	theirs, err := repo.ChangedFiles(head, onto)
	if err != nil {
		return nil, err
	}
	differ, err := repo.DiffNames(head, onto)
	if err != nil {
		return nil, err
	}
	changed, err := repo.DiffNames(head, tip)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range theirs {
		if !slices.Contains(differ, f) || slices.Contains(changed, f) {
			continue
		}
		// Not in the tip at all: the branch had renamed or removed it
		// before, and git's merge carried the target's edit to the new
		// name (or the agent settled a delete/modify): not kept whole.
		if _, there, err := repo.FileAt(tip, f); err != nil {
			return nil, err
		} else if !there {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// Seen is what a verdict on rec is about: its status and since when, its
// branch tip, its target's, the merge in progress or not. The same state is checked
// once (Monitor).
func Seen(w *workspace.Workspace, rec *state.Record) string {
	tip, _ := w.Repo.ResolveCommit(git.BranchRef(rec.Branch))
	op, _ := git.OperationInProgress(rec.Path)
	target := ""
	if rec.Resolve != nil {
		target, _ = w.Repo.ResolveCommit(git.BranchRef(rec.Resolve.Target))
	}
	return SeenTurn(rec) + " " + tip + " " + target + " " + op
}

// SeenTurn is the part of Seen a caller can tell without git: the agent's
// status and since when. A turn that ended since changes it.
func SeenTurn(rec *state.Record) string {
	return string(rec.Status) + "@" + rec.StatusSince.UTC().Format(time.RFC3339Nano)
}

// Note saves a verdict on rec's resolve, as seen.
func Note(w *workspace.Workspace, rec *state.Record, v Verdict, seen string) error {
	if rec.Resolve == nil {
		return nil
	}
	return record(w, rec.Name, rec.Resolve.At, func(cur *state.Resolving) {
		cur.Seen, cur.Checked = seen, w.Now()
		switch {
		case v.Ready:
			cur.Verdict = state.ResolveReady
		case v.Pending:
			cur.Verdict = ""
		default:
			cur.Verdict = v.Why
		}
	})
}

// Check verifies rec's resolve unless the same state was checked
// already, and saves the verdict: what the monitor does each tick for
// every agent resolving, and owt resolve NAME --status on demand (force).
func Check(w *workspace.Workspace, rec *state.Record, force bool) (Verdict, error) {
	if rec.Resolve == nil {
		return Verify(w, rec)
	}
	seen := Seen(w, rec)
	if !force && seen == rec.Resolve.Seen {
		return Verdict{}, nil
	}
	v, err := Verify(w, rec)
	if err != nil {
		return v, err
	}
	return v, Note(w, rec, v, seen)
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return untrusted.CleanLine(l)
		}
	}
	return ""
}

// Line is what a start did, for people, one line.
func (s Started) Line() string {
	what := fmt.Sprintf("%s: merged %s into %s in its worktree, conflicts left in %s", s.Name, s.Target, s.Branch, untrusted.Some(s.Files, 5))
	switch s.How {
	case "typed":
		return what + "; its agent is told to resolve them, run the tests and commit"
	case "restarted":
		return what + "; its agent had exited: started again there to resolve them"
	}
	return what + "; but its agent was not told (" + s.Untold + "): 'owt resolve " + s.Name + "' tells it again"
}
