package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// remoteLandTimeout bounds bringing a remote agent's branch home and
// tearing it down there.
const remoteLandTimeout = 5 * time.Minute

// MergeRemote brings the branch of an agent on a host home and merges it
// here, as Merge does for a local one: the same checks of the target and
// the same merge. Refused, changing nothing, while the agent works or
// waits (unless o.Force) or has uncommitted work there; --rebase and
// --leave-conflicts need its worktree, which is on the host. Unless
// o.Keep, the agent is then deleted on the host and the branch fetched
// here removed (it is merged).
func MergeRemote(w *workspace.Workspace, h *hosts.Host, name string, mo land.Options, o LandOptions) (Landed, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteLandTimeout)
	defer cancel()
	if mo.Rebase || mo.LeaveConflicts {
		return Landed{}, fmt.Errorf("%s@%s: --rebase and --leave-conflicts need its worktree, which is on %s", name, h.Name, h.Name)
	}
	clone, it, err := remoteToLand(ctx, w, h, name, "merging", o)
	if err != nil {
		return Landed{}, err
	}
	if it.Dirty > 0 {
		return Landed{}, fmt.Errorf("%s@%s has %w in %d file(s) on %s: they would not come home; have it commit them (owt send %s@%s …) or ship it (owt ship %s@%s)",
			name, h.Name, land.ErrUncommitted, it.Dirty, h.Name, name, h.Name, name, h.Name)
	}
	return landRemote(ctx, w, h, clone, it, mo, o, "merged", Landed{})
}

// ShipRemote ships an agent on a host, as Ship does a local one: its
// uncommitted work is committed there (by the host's owt, as ship
// commits: owt commit), refused first while the agent works or waits
// (unless o.Force) or when the host's check predicts a conflict with its
// base; then its branch comes home and merges here (MergeRemote's path).
// A commit made there stays when the landing here is refused, and the
// error says so.
func ShipRemote(w *workspace.Workspace, h *hosts.Host, name, message string, o LandOptions) (Landed, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteLandTimeout)
	defer cancel()
	clone, it, err := remoteToLand(ctx, w, h, name, "shipping", o)
	if err != nil {
		return Landed{}, err
	}
	var out Landed
	if it.Dirty > 0 {
		rep, err := checkOn(ctx, h, clone, name)
		if err != nil {
			return Landed{}, err
		}
		for _, c := range rep.Conflicts {
			if c.Kind == "base" {
				return Landed{}, fmt.Errorf("%w (as %s predicts); nothing was committed",
					remoteConflict(&land.ConflictError{Branch: it.Branch, Target: it.Base, Files: c.Files}, h, name, it.Branch), h.Name)
			}
		}
		argv := []string{"commit", "--json"}
		if message != "" {
			argv = append(argv, "--message="+message) // on the host owt's stdin, as JSON
		}
		if o.Force {
			argv = append(argv, "--force")
		}
		var stdout, stderr bytes.Buffer
		if err := h.Exec(ctx, clone, append(argv, "--", name), &stdout, &stderr); err != nil {
			return Landed{}, fmt.Errorf("commit %s@%s's work there: %w", name, h.Name, hostErr(err, &stderr))
		}
		var made land.ShipResult
		if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &made); err != nil {
			return Landed{}, fmt.Errorf("owt commit on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
		}
		out.Committed, out.Files = made.Committed, made.Files
	}
	res, err := landRemote(ctx, w, h, clone, it, land.Options{}, o, "shipped", out)
	if err != nil && res.Name == "" && out.Committed != "" {
		return Landed{}, fmt.Errorf("committed %d file(s) in %s@%s as %.12s there, but: %w", len(out.Files), name, h.Name, out.Committed, err)
	}
	return res, err
}

// remoteToLand is the agent called name on h as the host sees it now
// (every git figure fresh), and the host's clone of this repository:
// refused while it works or waits, unless o.Force, and for what the
// landing of a remote agent cannot do yet.
func remoteToLand(ctx context.Context, w *workspace.Workspace, h *hosts.Host, name, verbing string, o LandOptions) (string, lifecycle.Item, error) {
	clone, ok := h.Clone(w.Repo.Root)
	if !ok {
		return "", lifecycle.Item{}, fmt.Errorf("%w: %s", hosts.ErrNoClone, h.Name)
	}
	if o.Review {
		return "", lifecycle.Item{}, fmt.Errorf("%s@%s: the review gate of an agent on a host is not built yet: land it without --review", name, h.Name)
	}
	items, err := h.FreshAgents(ctx, clone)
	if err != nil {
		return "", lifecycle.Item{}, err
	}
	for _, it := range items {
		if it.Name != name {
			continue
		}
		if st := state.Status(it.Status); !o.Force && (st == state.Working || st == state.Starting || st.NeedsYou()) {
			return "", it, fmt.Errorf("%s@%s is %s: %s now would land a half-done turn; wait for it (owt wait %s@%s) or --force", name, h.Name, st, verbing, name, h.Name)
		}
		return clone, it, nil
	}
	return "", lifecycle.Item{}, fmt.Errorf("%w %q on %s", state.ErrUnknownName, name, h.Name)
}

// landRemote fetches it's branch home, merges it as mo says and, unless
// o.Keep, deletes the agent on the host and the fetched branch here.
// out carries what was done before (a commit there).
func landRemote(ctx context.Context, w *workspace.Workspace, h *hosts.Host, clone string, it lifecycle.Item, mo land.Options, o LandOptions, verb string, out Landed) (Landed, error) {
	name := it.Name
	// Its branch comes home into owt's own branch (owt/remote/HOST/BRANCH),
	// never into a local agent's or the user's branch of the same name;
	// that branch goes once this is over, whatever happened.
	f, err := h.FetchForLanding(ctx, w.Repo, name)
	defer func() {
		if f.Local != "" && w.Repo.BranchExists(f.Local) {
			_ = w.Repo.DeleteBranch(f.Local, true)
		}
	}()
	if err != nil {
		return Landed{}, err
	}
	branch := f.Local
	// The agent as the merge sees it: its branch here, its base, no
	// worktree here (its worktree is on the host).
	rec := &state.Record{Name: name, Repo: w.Repo.Root, Branch: branch, Base: it.Base}
	mo.BranchName = f.Branch // its name, on the host
	res, err := MergeContext(w).Merge(rec, mo)
	if err != nil {
		return Landed{}, remoteConflict(err, h, name, f.Branch)
	}
	res.Branch = f.Branch
	res.Name = name + "@" + h.Name // never read as a local agent of that name
	out.Result = res
	Note(Event{Repo: w.Repo.Root, Name: name + "@" + h.Name, Event: verb, Detail: "into " + res.Target})
	if o.Keep {
		return out, nil
	}
	// Its work as fetched is here now; anything it holds beyond that
	// keeps it there.
	var stderr bytes.Buffer
	if err := h.DeleteLanded(ctx, clone, name, f.Commit, &stderr); err != nil {
		err = hostErr(err, &stderr)
		out.Kept = err.Error()
		return out, fmt.Errorf("landed on %s, but %s@%s was kept there: %v", res.Target, name, h.Name, err)
	}
	out.Removed = true // and owt's own branch of it here goes (above)
	return out, nil
}

// remoteConflict is a conflict of the branch of the agent called name on
// h, named as it is there (owt's fetched copy here is gone by the time
// it is read), with what can be done about an agent on a host: its
// worktree is there, so --leave-conflicts cannot leave them in it.
func remoteConflict(err error, h *hosts.Host, name, branch string) error {
	var ce *land.ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	out := *ce
	out.Branch = fmt.Sprintf("%s@%s's branch %s", name, h.Name, branch)
	out.Advice = fmt.Sprintf("nothing was changed: have it merge %s into its branch there and resolve them (owt send %s@%s …), then land it again", out.Target, name, h.Name)
	return &out
}

// CheckRemote is the report of owt check about the agent called name on
// h, made there, where its worktree is (the host's owt check): its
// uncommitted files, its overlaps with the other agents there and the
// conflicts predicted with its base there.
func CheckRemote(w *workspace.Workspace, h *hosts.Host, name string) (land.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clone, ok := h.Clone(w.Repo.Root)
	if !ok {
		return land.Report{}, fmt.Errorf("%w: %s", hosts.ErrNoClone, h.Name)
	}
	return checkOn(ctx, h, clone, name)
}

func checkOn(ctx context.Context, h *hosts.Host, clone, name string) (land.Report, error) {
	var stdout, stderr bytes.Buffer
	if err := h.Exec(ctx, clone, []string{"check", "--json", "--", name}, &stdout, &stderr); err != nil {
		return land.Report{}, fmt.Errorf("check %s@%s there: %w", name, h.Name, hostErr(err, &stderr))
	}
	var rep land.Report
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &rep); err != nil {
		return rep, fmt.Errorf("owt check on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	rep.Name = name + "@" + h.Name
	return rep, nil
}

// HostError is a verb refused or failed by the host's owt: its own
// words and its exit code (a face keeps the code: 2 bad usage, 3 no
// such agent there).
type HostError struct {
	Host string
	Code int
	Msg  string
}

func (e *HostError) Error() string { return e.Msg }

// hostErr is err as a *HostError with what the host's owt said on
// stderr, when it failed there (its own words, on one line).
func hostErr(err error, stderr *bytes.Buffer) error {
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		msg := ""
		if stderr != nil {
			msg = strings.TrimSpace(stderr.String())
		}
		if msg == "" {
			msg = strings.TrimSpace(ee.Stderr)
		}
		msg = strings.TrimPrefix(msg, "owt: ")
		if msg == "" {
			msg = err.Error()
		}
		return &HostError{Host: ee.Host, Code: ee.Code, Msg: strings.ReplaceAll(msg, "\n", "; ")}
	}
	return err
}
