package templates

import (
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Chosen is the template of one agent, and whether owt guessed it.
type Chosen struct {
	Template
	Guessed bool
}

// None says no template shapes the prompt: the task is sent as it is.
func (c Chosen) None() bool { return c.Name == "" }

// Said is the line owt new prints about the template.
func (c Chosen) Said() string {
	if c.Guessed {
		return "template " + c.Name + ", guessed from the task's words (--template NAME picks one, --template none sends the task as it is)"
	}
	return "template " + c.Name
}

// Choose is the template called name: none for "" and None, a guess
// from the task's words for Auto, else the template of that name
// (ErrUnknown when there is none).
func Choose(cfg config.Config, repoRoot, name, task string) (Chosen, error) {
	switch name {
	case "", None:
		return Chosen{}, nil
	case Auto:
		t, err := Find(cfg, repoRoot, Guess(task))
		return Chosen{t, true}, err
	}
	t, err := Find(cfg, repoRoot, name)
	return Chosen{t, false}, err
}

// maxPeers bounds the peers a first prompt names.
const maxPeers = 10

// FirstPrompt is rec's first prompt with template c: the project's
// commands read off dir (its worktree), the other agents of the
// repository (others, rec among them or not) named as its peers.
func FirstPrompt(cfg config.Config, c Chosen, rec *state.Record, dir string, others []*state.Record, inRun bool) (string, error) {
	data := Protocol{InRun: inRun, InPlace: rec.InPlace, PromptData: config.PromptData{
		Task: rec.Task, Template: c.Name, Branch: rec.Branch, Base: rec.Base,
		Commands: Commands(cfg, dir, c.Template),
	}}
	for _, p := range others {
		if p.Name == rec.Name || p.NoAgent {
			continue
		}
		if len(data.Peers) == maxPeers {
			break
		}
		data.Peers = append(data.Peers, config.PromptPeer{Name: p.Name, Branch: p.Branch, Task: untrusted.From(p.Task).Short(100)})
	}
	return Compose(c.Template, data)
}
