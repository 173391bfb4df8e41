package cli

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// CommandRef is one command of owt as a CLI reference shows it.
type CommandRef struct {
	Path      []string // its words after owt: "run", "status"
	Aliases   []string
	Usage     string
	ArgsUsage string
	Group     string // its heading in owt --help; "" for a subcommand or plumbing
	Plumbing  bool   // left out of owt --help (it, or the command it is under)
	Flags     []FlagRef
	Examples  []string
}

// FlagRef is one flag of a command.
type FlagRef struct {
	Names       []string // "message", "m"
	Placeholder string   // what its value is called ("MESSAGE"); "" for a switch
	Usage       string
	Default     string // "" when there is none to say
	EnvVars     []string
}

// Reference is every command of owt, parents first in the order of its
// help, with its flags and examples: what a generated CLI reference
// reads. owt memory's commands are owt-mcp's and not in it.
func Reference() []CommandRef {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	a := app(f, commands(f))
	var out []CommandRef
	hidden := map[string]bool{}
	cmdutil.Walk(a.Commands, func(path []string, c *cli.Command) {
		key := strings.Join(path, " ")
		plumbing := c.Hidden || hidden[strings.Join(path[:len(path)-1], " ")]
		hidden[key] = plumbing
		ref := CommandRef{
			Path: path, Aliases: c.Aliases, Usage: c.Usage, ArgsUsage: c.ArgsUsage,
			Plumbing: plumbing, Examples: examples[key],
		}
		if len(path) == 1 && !plumbing {
			ref.Group = c.Category
		}
		for _, fl := range c.Flags {
			if r, ok := flagRef(fl); ok {
				ref.Flags = append(ref.Flags, r)
			}
		}
		out = append(out, ref)
	})
	return out
}

// flagRef describes fl; hidden flags (owt's own plumbing) are left out.
func flagRef(fl cli.Flag) (FlagRef, bool) {
	if vf, ok := fl.(cli.VisibleFlag); ok && !vf.IsVisible() {
		return FlagRef{}, false
	}
	df, ok := fl.(cli.DocGenerationFlag)
	if !ok {
		return FlagRef{Names: fl.Names()}, true
	}
	r := FlagRef{Names: fl.Names(), Usage: df.GetUsage(), EnvVars: df.GetEnvVars()}
	if i := strings.IndexByte(r.Usage, '`'); i >= 0 {
		if j := strings.IndexByte(r.Usage[i+1:], '`'); j >= 0 {
			r.Placeholder = r.Usage[i+1 : i+1+j]
			r.Usage = r.Usage[:i] + r.Placeholder + r.Usage[i+2+j:]
		}
	}
	if df.TakesValue() {
		if r.Placeholder == "" {
			r.Placeholder = "VALUE"
		}
		r.Default = df.GetDefaultText()
	} else if b, ok := fl.(*cli.BoolFlag); ok && b.Value {
		r.Default = "true"
	}
	return r, true
}
