package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// ErrSpawnLimit is a spawn past the repository's [mcp] limits.
var ErrSpawnLimit = errors.New("spawn refused")

// Spawn creates o as an executor of the agent me: recorded as spawned by
// it (shown under it), and refused past [mcp] max_spawned live executors
// of me, or when me is an executor deeper than [mcp] spawn_depth allows.
// spawn_agent and an agent's own owt new both come here, so the limits
// bind both. The task loses its control characters: an agent's text never
// drives the new agent's terminal.
func (w *Worktrees) Spawn(me *state.Record, o CreateOptions) (*state.Record, error) {
	cfg := w.Config.MCP
	if me.SpawnDepth+1 > cfg.SpawnDepth {
		if me.SpawnDepth == 0 {
			return nil, fmt.Errorf("%w: spawning is off for this repository ([mcp] spawn_depth = 0)", ErrSpawnLimit)
		}
		return nil, fmt.Errorf("%w: %s was itself spawned by %s, and [mcp] spawn_depth = %d lets executors spawn no further", ErrSpawnLimit, me.Name, me.Spawner, cfg.SpawnDepth)
	}
	o.Task = untrusted.Clean(o.Task)
	o.Spawner, o.SpawnDepth = me.Name, me.SpawnDepth+1
	var rec *state.Record
	// One spawn of me at a time, across processes, so two cannot both
	// pass the limit.
	lock := state.JSONFile[struct{}]{Path: spawnLockPath(w.Repo.Root, me.Name), What: "spawns of " + me.Name}
	err := lock.Locked(func() error {
		recs, err := w.Records()
		if err != nil {
			return err
		}
		live := 0
		for _, r := range recs {
			if r.Spawner == me.Name && r.Status != state.Exited {
				live++
			}
		}
		if live >= cfg.MaxSpawned {
			return fmt.Errorf("%w: %s has %d live agents it spawned, and [mcp] max_spawned = %d; wait for one to finish (or ask the user to delete one)", ErrSpawnLimit, me.Name, live, cfg.MaxSpawned)
		}
		rec, err = w.Create(o)
		return err
	})
	return rec, err
}

func spawnLockPath(repoRoot, name string) string {
	sum := sha256.Sum256([]byte(state.Key{Repo: repoRoot, Name: name}.String()))
	return filepath.Join(state.Dir(), "spawn", hex.EncodeToString(sum[:8]))
}

// CallingAgent is the live agent whose process runs pid (owt new typed
// by an agent's shell tool), or nil when it is the user's: pid's first
// ancestor that is an agent's pane process, or its session's leader (a
// double fork keeps the session tmux made for the pane). A process that
// left both (setsid) is still its agent's when it carries that agent's
// name, repository and MCP secret (the tools that hold the secret in
// their environment pass it to their shell). Agents of every repository
// count, on every tmux server their records name. A popup or another pane
// of the agent's session is the user's: tmux starts each as a session of
// its own.
func CallingAgent(pid int) (*state.Record, error) {
	stores, err := state.Stores()
	if err != nil {
		return nil, err
	}
	bySocket := map[string][]*state.Record{}
	for _, s := range stores {
		f, err := s.Peek()
		if err != nil {
			continue // a broken state file holds no agent to find
		}
		for _, r := range f.Records {
			if r.NoAgent || r.Creating || r.Status == state.Exited || r.Pane == "" {
				continue
			}
			bySocket[r.Socket] = append(bySocket[r.Socket], r)
		}
	}
	owner := map[int]*state.Record{}
	for socket, recs := range bySocket {
		tm := tmux.New()
		tm.Socket = socket
		panes, err := tm.Panes()
		if err != nil {
			// A server that does not answer (a stale record's) must not
			// stop the user's owt new; an agent there is still found by
			// its secret below.
			continue
		}
		pidOf := make(map[string]int, len(panes))
		for _, p := range panes {
			pidOf[p.ID] = p.PID
		}
		for _, r := range recs {
			if p := pidOf[r.Pane]; p > 0 {
				owner[p] = r
			}
		}
	}
	chain := ProcessChain(pid)
	for _, p := range chain {
		if r, ok := owner[p]; ok {
			return r, nil
		}
	}
	name, repo, tok := os.Getenv("OWT_NAME"), os.Getenv("OWT_REPO"), os.Getenv(state.MCPTokenEnv)
	if name != "" && repo != "" && tok != "" && state.CheckMCPToken(repo, name, tok) == nil {
		if f, err := state.ForRepo(repo).Peek(); err == nil {
			if r := f.Records[name]; r != nil && !r.NoAgent && r.Status != state.Exited {
				return r, nil
			}
		}
	}
	return nil, nil
}

// RefuseInAgent refuses what (a run, a swarm) when pid runs inside an
// agent (CallingAgent): each starts agents of its own, which no [mcp]
// limit of the agent's would bound and none would show under it. An
// agent starts agents only with owt new or spawn_agent.
func RefuseInAgent(pid int, what string) error {
	me, err := CallingAgent(pid)
	if err != nil || me == nil {
		return err
	}
	return fmt.Errorf("%w: this runs inside the agent %s, and an agent starts no %s (its agents would escape its [mcp] limits); it starts agents with owt new or spawn_agent", ErrSpawnLimit, me.Name, what)
}

// ProcessChain is pid's parent, grandparent … up to init, from /proc,
// then its session's leader.
func ProcessChain(pid int) []int {
	var out []int
	p := pid
	for i := 0; i < 64 && p > 1; i++ {
		st, _ := proc.ReadStat(p)
		if st.PPID <= 0 {
			break
		}
		out = append(out, st.PPID)
		p = st.PPID
	}
	if st, _ := proc.ReadStat(pid); st.Session > 0 {
		out = append(out, st.Session)
	}
	return out
}
