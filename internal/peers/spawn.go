package peers

import (
	"fmt"

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
// send_message, within the repository's [mcp] limits (lifecycle's Spawn,
// which an agent's own owt new goes through too).
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
	return lifecycle.Of(p.W).Spawn(me, lifecycle.CreateOptions{
		Task: task + reportBack(me.Name), Name: o.Name, Tool: o.Tool, Base: o.Base, From: me.Path,
	})
}

// reportBack is what an executor is told about its spawner.
func reportBack(spawner string) string {
	return fmt.Sprintf("\n\n(You were started by the agent %q through owt. When you are done, or blocked, tell it with the owt MCP tool send_message, to: %q: what you did and on which branch, or what you need.)", spawner, spawner)
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
