package lifecycle

import (
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
)

// ErrSwarmWorker marks a swarm worker's name given where a worktree's is
// wanted: a worker owns no worktree, owt swarm stop ends it.
var ErrSwarmWorker = errors.New("not a worktree")

// dropWithWorkers forgets the record of the worktree called name and the
// records of its swarm's workers, whose windows died with its session.
func (w *Worktrees) dropWithWorkers(name string) error {
	var workers []string
	err := w.forgetRecords(func(f *state.File) ([]string, error) {
		workers = workers[:0]
		for n, r := range f.Records {
			if n != name && r.WorkerOf(name) {
				workers = append(workers, n)
			}
		}
		return append([]string{name}, workers...), nil
	})
	for _, n := range workers {
		state.RemoveMCPFiles(w.Repo.Root, n) // its Claude --mcp-config file and MCP secret, if any
	}
	if err != nil {
		return fmt.Errorf("could not forget the records of %s and its swarm: %w", name, err)
	}
	return nil
}

// AbandonMail settles the messages still queued for the agents gone (just
// forgotten) as undeliverable, and forgets the message loops they were
// in: those were their lives', and a later agent given one of their names
// inherits none of it; owt messages shows what became of the messages.
//
// Their lives are remembered as deleted: a session that still carries one
// (@owt-life) is one owt made for them, which owt doctor --fix ends.
func AbandonMail(gone []*state.Record, logf func(string, ...any)) {
	box := outbox.Default()
	byRepo := map[string][]string{}
	for _, r := range gone {
		byRepo[r.Repo] = append(byRepo[r.Repo], r.Life)
	}
	for repo, lives := range byRepo {
		if err := state.NoteDeletedLives(repo, lives); err != nil {
			logf("remember the deleted agents of %s: %v", repo, err)
		}
	}
	for _, r := range gone {
		if n, err := box.Abandon(outbox.Of(r), outbox.ForDeleted); err != nil {
			logf("messages queued for %s: %v", r.Name, err)
		} else if n > 0 {
			logf("%d message(s) queued for %s were not delivered: it was deleted", n, r.Name)
		}
		if len(box.Loops(time.Now())) > 0 {
			if err := box.ForgetLoopsOf(r.Repo, r.Name); err != nil {
				logf("message loops of %s: %v", r.Name, err)
			}
		}
	}
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
		if err := w.dropRecordOf(r); err != nil {
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
