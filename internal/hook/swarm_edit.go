package hook

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

// maxEdited bounds the files remembered per swarm worker.
const maxEdited = 500

// noteWorkerEdit records on a swarm worker's record the file a tool-use
// event says it writes (relative to the worktree), once: owt swarm stop
// reports the tester's edits outside test files. Only workers (names with
// '/') pay for it; other agents' hooks never get here, and another tool's
// in its folder is not its work.
func noteWorkerEdit(w *ledger, name string, call Call, ev agent.HookEvent) error {
	path := agent.EditedFile(ev)
	if path == "" {
		return nil
	}
	err := w.store.UpdateRecord(name, func(r *state.Record) error {
		if r == nil || r.Swarm == nil || !fromAgent(r, call) {
			return state.ErrNoChange
		}
		rel, err := filepath.Rel(r.Path, path)
		if err != nil || !filepath.IsLocal(rel) {
			rel, err = filepath.Rel(realPath(r.Path), realPath(path))
		}
		if err != nil || !filepath.IsLocal(rel) {
			return state.ErrNoChange // outside the worktree: not its work
		}
		rel = filepath.ToSlash(rel)
		if slices.Contains(r.Swarm.Edited, rel) || len(r.Swarm.Edited) >= maxEdited {
			return state.ErrNoChange
		}
		r.Swarm.Edited = append(r.Swarm.Edited, rel)
		return nil
	})
	if err != nil {
		return fmt.Errorf("note the edit of %s by %s: %w", path, name, err)
	}
	return nil
}
