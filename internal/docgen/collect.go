package main

import (
	"github.com/urfave/cli/v2"

	owtcli "github.com/owt-tmux/owt/internal/cli"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/cli/mcpcmd"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/keybindings"
)

// source is everything the pages are made from, read once.
type source struct {
	commands  []owtcli.CommandRef // every command, parents first, owt memory's included
	global    []owtcli.FlagRef
	groups    []owtcli.Group
	config    []config.Key
	options   []keybindings.Option
	published []keybindings.Option
}

func collect() source {
	return source{
		commands:  commands(),
		global:    owtcli.GlobalFlags(),
		groups:    owtcli.HelpGroups(),
		config:    config.Schema(),
		options:   keybindings.Options(),
		published: keybindings.Published(),
	}
}

// commands is owt's command tree with owt memory's commands in place of
// the door owt hands them through: owt runs owt-mcp for them, whose tree
// they are.
func commands() []owtcli.CommandRef {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	memory := owtcli.ReferenceOf(nil, []*cli.Command{mcpcmd.MemoryCommand(f)}, mcpcmd.MemoryExamples)
	var out []owtcli.CommandRef
	for _, c := range owtcli.Reference() {
		if len(c.Path) > 0 && c.Path[0] == "memory" {
			if len(c.Path) == 1 {
				for i := range memory {
					memory[i].Plumbing = memory[i].Plumbing || c.Plumbing
				}
				memory[0].Group = c.Group
				out = append(out, memory...)
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// byPath finds commands by their words after owt.
func (s source) byPath() map[string]owtcli.CommandRef {
	m := map[string]owtcli.CommandRef{}
	for _, c := range s.commands {
		m[key(c.Path)] = c
	}
	return m
}

// ordered is the commands in the help's order: each group's commands
// with their subcommands, then the plumbing with theirs.
func (s source) ordered() (visible [][]owtcli.CommandRef, plumbing []owtcli.CommandRef) {
	under := func(top string) []owtcli.CommandRef {
		var out []owtcli.CommandRef
		for _, c := range s.commands {
			if c.Path[0] == top {
				out = append(out, c)
			}
		}
		return out
	}
	placed := map[string]bool{}
	for _, g := range s.groups {
		var cs []owtcli.CommandRef
		for _, n := range g.Commands {
			placed[n] = true
			for _, c := range under(n) {
				if !c.Plumbing {
					cs = append(cs, c)
				}
			}
		}
		visible = append(visible, cs)
	}
	for _, c := range s.commands {
		if !placed[c.Path[0]] || c.Plumbing {
			plumbing = append(plumbing, c)
		}
	}
	return visible, plumbing
}
