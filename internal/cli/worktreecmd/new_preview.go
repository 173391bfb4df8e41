package worktreecmd

import (
	"fmt"
	"io"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// previewJSON is owt new --dry-run --json.
type previewJSON struct {
	Name     string              `json:"name"`
	Branch   string              `json:"branch"`
	Base     string              `json:"base"`
	Tool     string              `json:"tool"`
	Plan     bool                `json:"plan"`
	Template string              `json:"template"`
	Guessed  bool                `json:"guessed,omitempty"`
	Prompt   untrusted.Untrusted `json:"prompt"`
	Facts    untrusted.Untrusted `json:"facts"`
	FactsN   int                 `json:"facts_count"`
	Note     string              `json:"facts_note,omitempty"`
	// ToolProblem: why owt new would refuse the tool (not installed).
	ToolProblem string `json:"tool_problem,omitempty"`
}

// printPreview shows what owt new would start the agent with.
func printPreview(o *newOptions, lp lifecycle.Preview) error {
	p := previewJSON{Name: lp.Name, Branch: lp.Branch, Base: lp.Base, Tool: lp.Tool, Plan: lp.Plan,
		Template: lp.Template, Guessed: lp.Guessed, Prompt: untrusted.From(lp.Prompt), Facts: untrusted.From(lp.FactsBlock), FactsN: len(lp.Facts), Note: lp.FactsNote,
		ToolProblem: lp.ToolProblem}
	if o.JSON {
		return cmdutil.PrintJSON(o.IO.Out, p)
	}
	printPreviewText(o.IO.Out, p, "owt new --dry-run: nothing was created.\n")
	if p.ToolProblem != "" {
		// Last, where it is seen: the prompt above can be long.
		fmt.Fprintf(o.IO.ErrOut, "owt new --dry-run: warning: %s; owt new would refuse it ('owt tools' lists the installed ones)\n", untrusted.From(p.ToolProblem).Line())
	}
	return nil
}

// printPreviewText is the text of owt new --dry-run after its first
// line, head.
func printPreviewText(out io.Writer, p previewJSON, head string) {
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
	fmt.Fprintf(out, "%sname %s, branch %s, base %s, tool %s, plan mode %s\ntemplate %s\n",
		head, untrusted.From(p.Name).Line(), untrusted.From(p.Branch).Line(), untrusted.From(p.Base).Line(), untrusted.From(p.Tool).Line(), plan, untrusted.From(tpl).Line())
	fmt.Fprintf(out, "\n--- first prompt ---\n%s\n", p.Prompt.Block())
	switch {
	case p.FactsN > 0:
		fmt.Fprintf(out, "\n--- memory: %d fact(s), written into the agent's instructions file ---\n%s\n", p.FactsN, p.Facts.Block())
	case p.Note != "":
		fmt.Fprintf(out, "\n--- memory: none: %s ---\n", untrusted.From(p.Note).Line())
	default:
		fmt.Fprintln(out, "\n--- memory: no fact matches this task ---")
	}
}
