package peers

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// CheckAncestry refuses a server started under another agent's pane. A
// tool starts its MCP servers as its own children, so an agent's server
// runs under the agent's own pane. The proof of who a server is, is the
// agent's secret (state.CheckMCPToken): a process can leave its pane's
// tree (setsid) and its session; this only refuses a secret used from
// another agent's pane. It reads the pane processes with one tmux call
// and walks /proc up from pid.
func CheckAncestry(w *workspace.Workspace, me string, pid int) error {
	recs, err := w.Records()
	if err != nil {
		return err
	}
	panes, err := w.Tmux.Panes()
	if err != nil {
		// Not vetted, so not served: the next call asks again.
		return fmt.Errorf("check whose pane this server runs under: %w", err)
	}
	pidOf := make(map[string]int, len(panes))
	for _, p := range panes {
		pidOf[p.ID] = p.PID
	}
	owner := map[int]string{}
	socket := socketOf(recs, me)
	for _, r := range recs {
		if r.Pane != "" && pidOf[r.Pane] > 0 && r.Socket == socket {
			owner[pidOf[r.Pane]] = r.Name
		}
	}
	// A process that left its parent behind (a double fork, "( cmd & )")
	// is adopted by init, but it stays in the session tmux made for the
	// pane: the session id is the last word. Only setsid leaves both.
	return checkAncestors(me, lifecycle.ProcessChain(pid), owner)
}

func socketOf(recs []*state.Record, name string) string {
	for _, r := range recs {
		if r.Name == name {
			return r.Socket
		}
	}
	return ""
}

// checkAncestors: the first ancestor that is an agent's pane process
// must be me's.
func checkAncestors(me string, chain []int, owner map[int]string) error {
	for _, pid := range chain {
		if name, ok := owner[pid]; ok {
			if name == me {
				return nil
			}
			return fmt.Errorf("this server runs under the agent %s's pane, so it cannot act as %s: an agent acts only as itself", name, me)
		}
	}
	return nil
}
