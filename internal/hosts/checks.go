package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
)

// CheckTimeout bounds one check command on a host, as the run engine's
// own (a hung test suite fails its check).
const CheckTimeout = 15 * time.Minute

// ChecksSpec is a run task's checks to run in its agent's worktree on a
// host: JSON on the remote owt's stdin (owt host checks), never on the
// ssh line — the commands are the user's plan.
type ChecksSpec struct {
	Name     string     `json:"name"`
	Tree     string     `json:"tree"`
	Commands [][]string `json:"commands"`
	// LastWrote are the files the last run wrote, with their marks
	// (run.CheckResult.Wrote): still as it left them, they are output.
	LastWrote map[string]string `json:"last_wrote,omitempty"`
}

// ChecksRun is how the checks went there: as run.CheckResult, made on
// the host.
type ChecksRun struct {
	Passed bool              `json:"passed"`
	Output string            `json:"output,omitempty"`
	Wrote  map[string]string `json:"wrote,omitempty"`
}

// RunChecks is the remote side of Checks: the checks of spec run in the
// worktree of the agent called spec.Name in the repository at dir, on
// the tree spec.Tree (an error when HEAD is not at that tree: the agent
// committed since), each within limit. The files they wrote are told
// apart from the agent's, as for a local task (none when the agent was
// active meanwhile).
func RunChecks(dir string, spec ChecksSpec, limit time.Duration) (ChecksRun, error) {
	rec, err := agentRecord(dir, spec.Name)
	if err != nil {
		return ChecksRun{}, err
	}
	if err := atTree(rec.Path, spec.Tree); err != nil {
		return ChecksRun{}, err
	}
	active := activity(rec)
	before, err := marks(rec.Path)
	if err != nil {
		return ChecksRun{}, err
	}
	ran := land.RunChecks(rec.Path, spec.Commands, limit)
	out := ChecksRun{Passed: ran.Passed, Output: ran.Output}
	if err := atTree(rec.Path, spec.Tree); err != nil {
		return ChecksRun{}, err
	}
	after, err := marks(rec.Path)
	if err != nil {
		return ChecksRun{}, err
	}
	if now, err := agentRecord(dir, spec.Name); err != nil || activity(now) != active {
		return out, nil // the agent may have written them: its work, not output
	}
	out.Wrote = map[string]string{}
	for f, mark := range after {
		if was, dirty := before[f]; !dirty || was != mark || spec.LastWrote[f] == mark {
			out.Wrote[f] = mark
		}
	}
	return out, nil
}

// agentRecord is the record of the agent called name in the repository
// at dir.
func agentRecord(dir, name string) (*state.Record, error) {
	repo, err := git.FindRepo(dir)
	if err != nil {
		return nil, err
	}
	f, err := state.ForRepo(repo.Root).Peek()
	if err != nil {
		return nil, fmt.Errorf("read the agents' records: %w", err)
	}
	rec := f.Records[name]
	if rec == nil {
		return nil, fmt.Errorf("no agent %q in %s", name, repo.Root)
	}
	return rec, nil
}

func atTree(path, tree string) error {
	head, err := (git.Repo{Root: path}).TreeOf("HEAD")
	if err != nil {
		return err
	}
	if head != tree {
		return fmt.Errorf("HEAD in %s moved from tree %.12s to %.12s: the checks run on the new one", path, tree, head)
	}
	return nil
}

// activity marks what the agent last did: two equal marks mean it did
// nothing in between.
func activity(rec *state.Record) string {
	return fmt.Sprintf("%s|%s|%d|%d", rec.Status, rec.Source, rec.StatusSince.UnixNano(), rec.EventAt.UnixNano())
}

// marks are the uncommitted files in dir, each with its mark.
func marks(dir string) (map[string]string, error) {
	files, err := git.DirtyFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		out[f] = run.CheckOutputMark(filepath.Join(dir, f))
	}
	return out, nil
}

// Checks runs spec's checks in the worktree of the host's agent in its
// clone at dir (owt host checks there, the spec on stdin) and says how
// they went.
func (h *Host) Checks(ctx context.Context, dir string, spec ChecksSpec) (ChecksRun, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return ChecksRun{}, err
	}
	out, err := h.SSH.Output(ctx, ssh.Remote{Dir: dir, Argv: remoteOwt("host", "checks"), Stdin: bytes.NewReader(in)})
	if err != nil {
		return ChecksRun{}, err
	}
	var res ChecksRun
	if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
		return ChecksRun{}, fmt.Errorf("owt host checks on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	return res, nil
}
