package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
)

// Evidence is what a host's owt reads of one of its agents for the judge
// of a run task placed there: the agent's record (status, owt done) and
// the same git readings a local task is judged on (run.WorkOf: the commits
// of its own branch against its start and base; its uncommitted files).
// It is read where the worktree is, so only its result crosses ssh.
type Evidence struct {
	Name        string            `json:"name"`
	Branch      string            `json:"branch"`
	Status      state.Status      `json:"status"`
	Since       time.Time         `json:"since"`
	EventAt     time.Time         `json:"event_at,omitzero"`
	WaitingFor  string            `json:"waiting_for,omitempty"`
	Limit       *state.Limit      `json:"limit,omitempty"`
	ExitCode    *int              `json:"exit_code,omitempty"`
	Done        *state.DoneSignal `json:"done,omitempty"`
	Commits     int               `json:"commits"`
	Unchanged   bool              `json:"unchanged,omitempty"`
	Base        string            `json:"base,omitempty"`
	OffBranch   string            `json:"off_branch,omitempty"`
	Uncommitted []string          `json:"uncommitted,omitempty"`
	Tree        string            `json:"tree,omitempty"`
	// Tip is the commit of its branch there: what a landing must fetch.
	Tip string `json:"tip,omitempty"`
}

// EvidenceSpec names the agent whose evidence is asked for: JSON on the
// remote owt's stdin (owt host evidence), never on the ssh line.
type EvidenceSpec struct {
	Name string `json:"name"`
	// Wrote are the files the task's last checks wrote there, with their
	// marks: while still as they left them, they are not its work.
	Wrote map[string]string `json:"wrote,omitempty"`
}

// ReadEvidence is the remote side of Evidence: the evidence of the agent
// spec names in the repository at dir (this machine's).
func ReadEvidence(dir string, spec EvidenceSpec) (Evidence, error) {
	rec, err := agentRecord(dir, spec.Name)
	if err != nil {
		return Evidence{}, err
	}
	ev := Evidence{Name: rec.Name, Branch: rec.Branch, Status: rec.Status, Since: rec.StatusSince, EventAt: rec.EventAt,
		WaitingFor: rec.WaitingFor, Limit: rec.Limit, ExitCode: rec.ExitCode, Done: rec.Done}
	if ev.Status != state.Idle && ev.Status != state.Exited {
		return ev, nil // a turn not over is judged on its record alone, as here
	}
	// The run's into is a branch of the local repository, not of this
	// one: only the base's commits are left out here.
	w, err := (&run.WorkMemo{}).JudgedWorkOf(rec, "")
	if err != nil {
		return ev, err
	}
	ev.OffBranch = w.Problem(rec.Path)
	ev.Commits, ev.Unchanged, ev.Base, ev.Tree = w.Commits, w.Unchanged, w.Base, w.Tree
	if !w.Gone {
		if ev.Tip, err = (git.Repo{Root: rec.Path}).ResolveCommit(git.BranchRef(rec.Branch)); err != nil {
			return ev, err
		}
	}
	files, err := lifecycle.WorkFiles(rec)
	if err != nil {
		return ev, fmt.Errorf("uncommitted files: %w", err)
	}
	ev.Uncommitted = (&run.CheckResult{Wrote: spec.Wrote}).NotCheckOutput(rec.Path, files)
	return ev, nil
}

// Evidence asks the host's owt for the evidence of its agent spec names
// in its clone at dir (owt host evidence there, one channel of the
// shared connection). A host out of reach is an error wrapping
// ssh.ErrUnreachable.
func (h *Host) Evidence(ctx context.Context, dir string, spec EvidenceSpec) (Evidence, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return Evidence{}, err
	}
	out, err := h.SSH.Output(ctx, ssh.Remote{Dir: dir, Argv: remoteOwt("host", "evidence"), Stdin: bytes.NewReader(in)})
	if err != nil {
		return Evidence{}, err
	}
	var ev Evidence
	if err := json.Unmarshal(bytes.TrimSpace(out), &ev); err != nil {
		return Evidence{}, fmt.Errorf("owt host evidence on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	return ev, nil
}
