package workspace

import (
	"strings"

	"github.com/owt-tmux/owt/internal/state"
)

// WorkerMark is the value of a swarm worker's window option
// (tmux.WorkerOption): "HOST/ROLE TOOL ro|rw LIFE", what a rebuilt state
// file needs to know to give the worker its record back — its life too,
// so the rebuilt worker keeps its mail and its runner knows it. (An older
// owt's mark has no LIFE.)
func WorkerMark(r *state.Record) string {
	mode := "rw"
	if r.ReadOnly {
		mode = "ro"
	}
	mark := r.Name + " " + r.Tool + " " + mode
	if r.Life != "" {
		mark += " " + r.Life
	}
	return mark
}

// rebuildWorkers gives back their records to the swarm workers whose
// windows, marked with WorkerMark, are still in their host's session
// (panes maps a pane id to its session id and the mark). Their task, and
// the edits the tester made, are lost with the file (Recovered).
func (w *Workspace) rebuildWorkers(f *state.File, panes map[string][2]string) {
	for pane, m := range panes {
		fields := strings.Fields(m[1])
		if len(fields) != 3 && len(fields) != 4 || state.ValidateWorkerName(fields[0]) != nil {
			continue
		}
		name, tool, mode, life := fields[0], fields[1], fields[2], ""
		if len(fields) == 4 {
			life = fields[3]
		}
		hostName, role, _ := strings.Cut(name, "/")
		h, ok := f.Records[hostName]
		if !ok || h.SessionID == "" || h.SessionID != m[0] {
			continue
		}
		now := w.Now()
		f.Records[name] = &state.Record{
			Name: name, Life: life, Repo: h.Repo, Branch: h.Branch, Base: h.Base, Path: h.Path,
			Session: h.Session, SessionID: h.SessionID, Server: h.Server, Socket: h.Socket, Port: h.Port,
			Pane: pane, Tool: tool, ReadOnly: mode == "ro", NoSetup: true,
			Swarm:  &state.SwarmRole{Host: hostName, Role: role},
			Status: state.Idle, StatusSince: now, Source: state.FromOwt, CreatedAt: h.CreatedAt, Recovered: true,
		}
	}
}
