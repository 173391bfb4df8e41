package worktreecmd

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/text"
)

// previewJSON is owt new --dry-run --json.
type previewJSON struct {
	Name     string         `json:"name"`
	Branch   string         `json:"branch"`
	Base     string         `json:"base"`
	Tool     string         `json:"tool"`
	Plan     bool           `json:"plan"`
	Template string         `json:"template"`
	Guessed  bool           `json:"guessed,omitempty"`
	Prompt   text.Untrusted `json:"prompt"`
	Facts    text.Untrusted `json:"facts"`
	FactsN   int            `json:"facts_count"`
	Note     string         `json:"facts_note,omitempty"`
}

// printPreview shows what owt new would start the agent with.
func printPreview(o *newOptions, p lifecycle.Preview) error {
	if o.JSON {
		return cmdutil.PrintJSON(o.IO.Out, previewJSON{Name: p.Name, Branch: p.Branch, Base: p.Base, Tool: p.Tool, Plan: p.Plan,
			Template: p.Template, Guessed: p.Guessed, Prompt: text.From(p.Prompt), Facts: text.From(p.FactsBlock), FactsN: len(p.Facts), Note: p.FactsNote})
	}
	out := o.IO.Out
	tpl := "none (the task is sent as it is)"
	switch {
	case p.Template != "" && p.Guessed:
		tpl = p.Template + ", guessed from the task's words (--template NAME picks one, --template none sends the task as it is)"
	case p.Template != "":
		tpl = p.Template
	}
	plan := "no"
	if p.Plan {
		plan = "yes"
	}
	fmt.Fprintf(out, "owt new --dry-run: nothing was created.\nname %s, branch %s, base %s, tool %s, plan mode %s\ntemplate %s\n",
		p.Name, p.Branch, p.Base, p.Tool, plan, tpl)
	fmt.Fprintf(out, "\n--- first prompt ---\n%s\n", text.From(p.Prompt).Block())
	switch {
	case len(p.Facts) > 0:
		fmt.Fprintf(out, "\n--- memory: %d fact(s), written into the agent's instructions file ---\n%s\n", len(p.Facts), text.From(p.FactsBlock).Block())
	case p.FactsNote != "":
		fmt.Fprintf(out, "\n--- memory: none: %s ---\n", p.FactsNote)
	default:
		fmt.Fprintln(out, "\n--- memory: no fact matches this task ---")
	}
	return nil
}
