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
	// Subcommands are the names of the commands under it, hidden ones
	// included.
	Subcommands []string
	Flags       []FlagRef
	Examples    []string
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
// reads. owt memory's commands are owt-mcp's and not in it (see
// ReferenceOf).
func Reference() []CommandRef {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	a := app(f, commands(f))
	return ReferenceOf(nil, a.Commands, examples)
}

// ReferenceOf is Reference for another command tree: cmds under the words
// parent (owt-mcp's memory commands, which owt hands over whole), with
// their examples by their words after owt.
func ReferenceOf(parent []string, cmds []*cli.Command, examples map[string][]string) []CommandRef {
	var out []CommandRef
	hidden := map[string]bool{}
	cmdutil.Walk(cmds, func(sub []string, c *cli.Command) {
		path := append(append([]string{}, parent...), sub...)
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
		ref.Flags = FlagRefs(c.Flags)
		for _, sub := range c.Subcommands {
			ref.Subcommands = append(ref.Subcommands, sub.Name)
		}
		out = append(out, ref)
	})
	return out
}

// GlobalFlags are the flags owt takes before any command (-L, -S,
// --trace, --log-format, --help, --version).
func GlobalFlags() []FlagRef {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	a := app(f, commands(f))
	flags := append([]cli.Flag{}, a.Flags...)
	if !a.HideVersion && cli.VersionFlag != nil {
		flags = append(flags, cli.VersionFlag)
	}
	return FlagRefs(flags)
}

// FlagRefs describes the visible flags of flags, in their order.
func FlagRefs(flags []cli.Flag) []FlagRef {
	var out []FlagRef
	for _, fl := range flags {
		if r, ok := flagRef(fl); ok {
			out = append(out, r)
		}
	}
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

// Group is a heading of owt --help and its commands, in the help's order.
type Group struct {
	Name     string
	Commands []string
}

// HelpGroups are owt --help's headings, in its order: a reference lists
// the commands the way the help does.
func HelpGroups() []Group {
	out := make([]Group, len(groups))
	for i, g := range groups {
		out[i] = Group{Name: g.name, Commands: append([]string(nil), g.commands...)}
	}
	return out
}
