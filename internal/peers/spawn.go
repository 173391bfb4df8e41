package peers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
)

// SpawnOptions are spawn_agent's arguments.
type SpawnOptions struct {
	Task string
	Name string // derived from the task when empty
	Tool string // [agent] tool when empty
	Base string // the spawner's branch when empty
}

// Spawn starts an executor agent as owt new would, on a branch from mine
// unless a base is given, told who spawned it and to report back with
// send_message. It is refused past [mcp] max_spawned live executors of
// mine, or when I am an executor deeper than [mcp] spawn_depth allows.
func (p *Peers) Spawn(o SpawnOptions) (*state.Record, error) {
	task, err := CheckText(o.Task)
	if err != nil {
		return nil, err
	}
	me, _, err := p.self()
	if err != nil {
		return nil, err
	}
	if p.ConfigErr != nil {
		return nil, fmt.Errorf("%w: the repository's config has a problem, so its [mcp] limits are unknown: %v", ErrSpawnLimit, p.ConfigErr)
	}
	cfg := p.W.Config.MCP
	if me.SpawnDepth+1 > cfg.SpawnDepth {
		if me.SpawnDepth == 0 {
			return nil, fmt.Errorf("%w: spawning is off for this repository ([mcp] spawn_depth = 0)", ErrSpawnLimit)
		}
		return nil, fmt.Errorf("%w: %s was itself spawned by %s, and [mcp] spawn_depth = %d lets executors spawn no further", ErrSpawnLimit, me.Name, me.Spawner, cfg.SpawnDepth)
	}
	var rec *state.Record
	// One spawn of mine at a time, across processes, so two cannot both
	// pass the limit.
	lock := state.JSONFile[struct{}]{Path: p.spawnLockPath(), What: "spawns of " + me.Name}
	err = lock.Locked(func() error {
		recs, err := p.W.Records()
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
			return fmt.Errorf("%w: you have %d live agents you spawned, and [mcp] max_spawned = %d; wait for one to finish (or ask the user to delete one)", ErrSpawnLimit, live, cfg.MaxSpawned)
		}
		rec, err = lifecycle.Of(p.W).Create(lifecycle.CreateOptions{
			Task: task + reportBack(me.Name), Name: o.Name, Tool: o.Tool, Base: o.Base,
			From: me.Path, Spawner: me.Name, SpawnDepth: me.SpawnDepth + 1,
		})
		return err
	})
	return rec, err
}

// reportBack is what an executor is told about its spawner.
func reportBack(spawner string) string {
	return fmt.Sprintf("\n\n(You were started by the agent %q through owt. When you are done, or blocked, tell it with the owt MCP tool send_message, to: %q: what you did and on which branch, or what you need.)", spawner, spawner)
}

func (p *Peers) spawnLockPath() string {
	sum := sha256.Sum256([]byte(p.W.Repo.Root + "\x00" + p.Me))
	return filepath.Join(state.Dir(), "spawn", hex.EncodeToString(sum[:8]))
}

// ShareNote adds text to the repository's note (owt note) under the
// agents' own heading, each line signed, in every agent's instructions
// file. The user's note stays as it is; a note this agent shared already
// is refused; agents' notes take at most notes.MaxAgentNotes, the oldest
// dropped first.
func (p *Peers) ShareNote(text string) ([]notes.Result, int, error) {
	body, err := CheckText(text)
	if err != nil {
		return nil, 0, err
	}
	if _, _, err := p.self(); err != nil {
		return nil, 0, err
	}
	return notes.Of(p.W).AddAgentNote(p.Me, body)
}
