package control

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// The verbs of the control plane on an agent of a host: each runs the
// host's owt on the agent there (owt host exec, or owt send
// --spec-stdin), what the user typed travelling on its stdin, never on
// the ssh line. The popups and the commands call these, as they call the
// local verbs.

// remoteVerbTimeout bounds one verb on a host (a send waits for a
// starting agent up to the host's own [agent] send_timeout).
const remoteVerbTimeout = 3 * time.Minute

// cloneOf is h's clone of w's repository.
func cloneOf(w *workspace.Workspace, h *hosts.Host) (string, error) {
	clone, ok := h.Clone(w.Repo.Root)
	if !ok {
		return "", fmt.Errorf("%w: %s", hosts.ErrNoClone, h.Name)
	}
	return clone, nil
}

// RemoteAgent is the agent called name on h as the host sees it now,
// every git figure fresh.
func RemoteAgent(w *workspace.Workspace, h *hosts.Host, name string) (lifecycle.Item, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clone, err := cloneOf(w, h)
	if err != nil {
		return lifecycle.Item{}, err
	}
	items, err := h.FreshAgents(ctx, clone)
	if err != nil {
		return lifecycle.Item{}, err
	}
	for _, it := range items {
		if it.Name == name {
			return it, nil
		}
	}
	return lifecycle.Item{}, fmt.Errorf("%w %q on %s", state.ErrUnknownName, name, h.Name)
}

// SendRemote types text into the agent called name on h, as owt send
// there does (answer: into the prompt it waits at), and returns what that
// owt said, each result named NAME@HOST. A host owt that says nothing
// readable is an error (a *HostError with its words and exit code when
// it refused).
func SendRemote(w *workspace.Workspace, h *hosts.Host, name, text string, answer bool) ([]send.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteVerbTimeout)
	defer cancel()
	clone, err := cloneOf(w, h)
	if err != nil {
		return nil, err
	}
	out, err := h.Send(ctx, clone, hosts.SendSpec{Name: name, Text: text, Answer: answer})
	var results []send.Result
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &results); jerr != nil || len(results) == 0 {
		if err == nil {
			err = fmt.Errorf("owt send on %s said nothing readable", h.Name)
		}
		return nil, hostErr(err, nil)
	}
	for i := range results {
		results[i].Name += "@" + h.Name
	}
	return results, nil
}

// RemoteLoss is what deleting the agent called name on h would lose
// (owt delete --dry-run there), its commits counted only when they are
// not here: its branch's tip held by a branch here (its work merged
// here, a teardown there cut off) loses no commit.
func RemoteLoss(w *workspace.Workspace, h *hosts.Host, name string) (lifecycle.Loss, error) {
	loss, err := lossThere(w, h, name)
	if err != nil {
		return loss, err
	}
	if heldHere(w, loss) {
		loss.Unmerged = 0
	}
	return loss, nil
}

// heldHere reports whether the commits loss counts (on a host) are all
// here already: its tip held by a branch here loses no commit there.
func heldHere(w *workspace.Workspace, loss lifecycle.Loss) bool {
	return loss.Unmerged > 0 && w.Repo.HeldByBranches(loss.Tip)
}

// lossThere is what the host's owt says deleting the agent would lose
// there: commits its branches there lack, whether or not they are here.
func lossThere(w *workspace.Workspace, h *hosts.Host, name string) (lifecycle.Loss, error) {
	var loss lifecycle.Loss
	out, err := execOn(w, h, []string{"delete", "--dry-run", "--json", "--", name})
	if err != nil {
		return loss, err
	}
	if err := json.Unmarshal(out, &loss); err != nil {
		return loss, fmt.Errorf("owt delete --dry-run on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	return loss, nil
}

// DeleteRemote deletes the agent called name on h (its session, worktree
// and branch there) as owt delete there does: refused, deleting nothing,
// when it would lose work, unless o.Force, or losing at most o.Accept
// (what the user was shown and said yes to, RemoteLoss's). Commits held
// here already are not work lost (RemoteLoss): the host's owt is told
// to accept them, at that tip only. o.Leaving is not used: no client
// here is on its session.
func DeleteRemote(w *workspace.Workspace, h *hosts.Host, name string, o lifecycle.DeleteOptions) error {
	argv := []string{"delete", "--yes"}
	if o.Force {
		argv = append(argv, "--force")
	}
	if o.KeepBranch {
		argv = append(argv, "--keep-branch")
	}
	if o.CutOffOnly {
		argv = append(argv, "--cut-off-only")
	}
	accept := o.Accept
	if !o.Force {
		there, err := lossThere(w, h, name)
		if err != nil {
			return err
		}
		if heldHere(w, there) && (accept == nil || accept.Tip == "" || accept.Tip == there.Tip) {
			a := lifecycle.Loss{}
			if accept != nil {
				a = *accept
			}
			a.Unmerged, a.Tip = max(a.Unmerged, there.Unmerged), there.Tip
			rest := there
			rest.Unmerged = 0
			if !rest.Within(a) {
				return fmt.Errorf("%s@%s %w on %s: %s (its commits are here already; have it commit the rest, or use --force)", name, h.Name, lifecycle.ErrWouldLoseWork, h.Name, rest)
			}
			accept = &a
		}
	}
	if accept != nil {
		a, err := json.Marshal(*accept)
		if err != nil {
			return err
		}
		argv = append(argv, "--accept="+string(a))
	}
	if _, err := execOn(w, h, append(argv, "--", name)); err != nil {
		return err
	}
	Note(Event{Repo: w.Repo.Root, Name: name + "@" + h.Name, Event: "deleted"})
	return nil
}

// RemoteChangedFiles are the files the agent called name on h changed
// against its base, with their counts (owt diff --json there).
func RemoteChangedFiles(w *workspace.Workspace, h *hosts.Host, name string) ([]git.FileChange, error) {
	out, err := execOn(w, h, []string{"diff", "--json", "--", name})
	if err != nil {
		return nil, err
	}
	var files []git.FileChange
	if err := json.Unmarshal(out, &files); err != nil {
		return nil, fmt.Errorf("owt diff on %s: %w", h.Name, err)
	}
	return files, nil
}

// RemoteFileDiff is the diff of one file the agent called name on h
// changed (owt diff --file there), as plain text.
func RemoteFileDiff(w *workspace.Workspace, h *hosts.Host, name, path string) (string, error) {
	out, err := execOn(w, h, []string{"diff", "--file=" + path, "--", name})
	return string(out), err
}

// execOn runs owt argv on h in its clone of w's repository and returns
// what it printed; its failure is the host's owt's own words.
func execOn(w *workspace.Workspace, h *hosts.Host, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteVerbTimeout)
	defer cancel()
	clone, err := cloneOf(w, h)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	if err := h.Exec(ctx, clone, argv, &stdout, &stderr); err != nil {
		return nil, hostErr(err, &stderr)
	}
	return bytes.TrimSpace(stdout.Bytes()), nil
}
