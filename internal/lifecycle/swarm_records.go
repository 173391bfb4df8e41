package lifecycle

import (
	"errors"
	"fmt"
	"os"

	"github.com/owt-tmux/owt/internal/state"
)

// ErrSwarmWorker marks a swarm worker's name given where a worktree's is
// wanted: a worker owns no worktree, owt swarm stop ends it.
var ErrSwarmWorker = errors.New("not a worktree")

// dropWithWorkers forgets the record of the worktree called name and the
// records of its swarm's workers, whose windows died with its session.
func (w *Worktrees) dropWithWorkers(name string) error {
	var workers []string
	err := w.Store.Update(func(f *state.File) error {
		delete(f.Records, name)
		for n, r := range f.Records {
			if r.WorkerOf(name) {
				delete(f.Records, n)
				workers = append(workers, n)
			}
		}
		return nil
	})
	for _, n := range workers {
		_ = os.Remove(state.MCPConfigPath(w.Repo.Root, n)) // its Claude --mcp-config file, if any
	}
	if err != nil {
		return fmt.Errorf("could not forget the records of %s and its swarm: %w", name, err)
	}
	return nil
}

// SwarmWorkerWithoutHost is owt doctor's finding of a swarm worker whose
// host worktree owt no longer knows.
const SwarmWorkerWithoutHost = "swarm-worker-without-host"

// doctorWorker checks a swarm worker: it shares its host's worktree and
// session, which the host's own check covers, so only a worker whose host
// record is gone is a finding (--fix closes its window and forgets it).
func (w *Worktrees) doctorWorker(r *state.Record, recs []*state.Record, fix bool, rep *DoctorReport) {
	for _, h := range recs {
		if h.Name == r.Swarm.Host && h.Swarm == nil {
			return
		}
	}
	f := Finding{Kind: SwarmWorkerWithoutHost, Name: r.Name,
		Detail: fmt.Sprintf("swarm worker %s belongs to %s, which owt no longer knows", r.Name, r.Swarm.Host),
		Action: "--fix closes its window and forgets it"}
	if fix {
		if r.Pane != "" && r.Server != "" && w.sameServer(r) {
			_ = w.Tmux.KillWindow(r.Pane)
		}
		if err := w.dropRecord(r.Name); err != nil {
			f.Action = err.Error()
		} else {
			f.Fixed, f.Action = true, "closed its window and forgot it"
		}
	}
	rep.Findings = append(rep.Findings, f)
}

// sameServer reports whether r's ids were handed out by the tmux server
// owt talks to now (ids are reused by a new server).
func (w *Worktrees) sameServer(r *state.Record) bool {
	id, err := w.Tmux.ServerIdentity()
	return err == nil && id == r.Server
}
