package cli

import (
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/notify"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
)

// completion is what shell completion offers for owt's values: agent
// names, runs and their tasks, tools, templates, hosts, branches. Each is
// read from owt's files and the config; the only processes a TAB may
// start are git's: finding the repository (agent names, a repository's
// config: git.FindRepo, two calls), and listing its branches for --base
// and --into (one more). Nothing asks tmux.
func completion(app *cli.App) cmdutil.Completion {
	v := &values{app: app}
	return cmdutil.Completion{FlagValues: v.flag, Args: v.args}
}

// values reads what completion offers, each source at most once per TAB.
type values struct {
	app      *cli.App
	repoOnce sync.Once
	repo     git.Repo
	found    bool
}

// Enumerations of flag values, by flag name.
var flagChoices = map[string][]string{
	"until":      {"idle", "waiting", "exited", "any"},
	"by":         {"agent", "run", "day"},
	"strategy":   {"ours", "theirs"},
	"theme":      {"auto", "dark", "light", "dark-ansi", "light-ansi"},
	"log-format": {"text", "json"},
}

func (v *values) flag(path []string, name string, _ []string) cmdutil.Answer {
	if c, ok := flagChoices[name]; ok {
		return cmdutil.Words(c...)
	}
	switch name {
	case "tool":
		return v.tools()
	case "template":
		return v.templates()
	case "host":
		return v.hosts()
	case "base", "into":
		return v.branches()
	case "worktree": // owt swarm start -w NAME
		return v.agents()
	case "output", "S", "socket":
		return cmdutil.Answer{Files: true}
	}
	return cmdutil.Answer{}
}

func (v *values) args(path []string, args []string) cmdutil.Answer {
	first := len(args) == 0
	switch strings.Join(path, " ") {
	case "switch", "attach", "delete", "check", "merge", "ship", "commit", "sync", "resolve",
		"status", "why", "diff", "pr", "send", "messages", "host fetch", "swarm send", "swarm stop":
		if first {
			return v.agents()
		}
	case "wait":
		return v.agents().Without(args)
	case "dismiss":
		if first {
			return v.agents()
		}
		return cmdutil.Words(append(append([]string{}, config.ReactionNames...), "message_loop")...).Without(args[1:])
	case "run status", "run pause", "run resume", "run stop", "run forget", "run log":
		if first {
			return v.runs()
		}
	case "run retry", "run skip", "run cancel":
		switch len(args) {
		case 0:
			return v.runs()
		case 1:
			return v.tasks(args[0])
		}
	case "notify test":
		if first {
			return cmdutil.Words(notify.Names...)
		}
	case "run start", "batch", "orchestrate":
		if first {
			return cmdutil.Answer{Files: true}
		}
	case "host check", "host remove":
		if first {
			return v.hosts()
		}
	case "completion":
		if first {
			return cmdutil.Words("bash", "zsh", "fish")
		}
	case "help": // owt help COMMAND… | plumbing
		cmds := v.app.Commands
		for _, word := range args {
			c := v.app.Command(word)
			if len(args) > 1 {
				c = nil
				for _, at := range cmds {
					if at.HasName(word) {
						c = at
					}
				}
			}
			if c == nil {
				return cmdutil.Answer{}
			}
			cmds = c.Subcommands
		}
		var a cmdutil.Answer
		if first {
			a.Words = append(a.Words, cmdutil.Candidate{Word: "plumbing", About: "the commands owt, tmux and the agents run themselves"})
		}
		for _, c := range cmds {
			if !c.Hidden {
				a.Words = append(a.Words, cmdutil.Candidate{Word: c.Name, About: c.Usage})
			}
		}
		return a
	}
	return cmdutil.Answer{}
}

// findRepo finds the repository of the current directory, once.
func (v *values) findRepo() (git.Repo, bool) {
	v.repoOnce.Do(func() {
		if wd, err := os.Getwd(); err == nil {
			if r, err := git.FindRepo(wd); err == nil {
				v.repo, v.found = r, true
			}
		}
	})
	return v.repo, v.found
}

// config is the merged config of this repository, or the user's alone.
func (v *values) config() config.Config {
	root := ""
	if r, ok := v.findRepo(); ok {
		root = r.Root
	}
	cfg, err := config.Load(root)
	if err != nil {
		return config.Defaults()
	}
	return cfg
}

// agents are this repository's agents, from owt's records.
func (v *values) agents() cmdutil.Answer {
	r, ok := v.findRepo()
	if !ok {
		return cmdutil.Answer{}
	}
	f, err := state.ForRepo(r.Root).Load()
	if err != nil {
		return cmdutil.Answer{}
	}
	var a cmdutil.Answer
	for _, rec := range f.Sorted() {
		a.Words = append(a.Words, cmdutil.Candidate{Word: rec.Name, About: about(string(rec.Status), rec.Task)})
	}
	return a
}

// runs are the registered runs, newest state first as owt run list has them.
func (v *values) runs() cmdutil.Answer {
	runs, _ := run.DefaultStore().List() // a broken run is left out
	var a cmdutil.Answer
	for _, r := range runs {
		a.Words = append(a.Words, cmdutil.Candidate{Word: r.Name, About: string(r.State)})
	}
	return a
}

// tasks are the tasks of the run called name.
func (v *values) tasks(name string) cmdutil.Answer {
	r, err := run.DefaultStore().Load(name)
	if err != nil {
		return cmdutil.Answer{}
	}
	var a cmdutil.Answer
	for _, t := range r.Tasks {
		a.Words = append(a.Words, cmdutil.Candidate{Word: t.ID, About: string(t.State)})
	}
	return a
}

// tools are the installed tools of the config's profiles (found on PATH,
// no process run); every profile when none is installed.
func (v *values) tools() cmdutil.Answer {
	profiles, err := agent.Profiles(v.config())
	if err != nil {
		return cmdutil.Answer{}
	}
	var installed, all cmdutil.Answer
	for _, n := range agent.Order(profiles) {
		if path, ok := profiles[n].LookPath(); ok {
			installed.Words = append(installed.Words, cmdutil.Candidate{Word: n, About: path})
		}
		all.Words = append(all.Words, cmdutil.Candidate{Word: n, About: "not installed"})
	}
	if len(installed.Words) == 0 {
		return all
	}
	return installed
}

// templates are auto, none and every template of the config.
func (v *values) templates() cmdutil.Answer {
	a := cmdutil.Answer{Words: []cmdutil.Candidate{
		{Word: templates.Auto, About: "guess one from the task"},
		{Word: "none", About: "the task as it is"},
	}}
	cfg := v.config()
	root := ""
	if r, ok := v.findRepo(); ok {
		root = r.Root
	}
	all, err := templates.All(cfg, root)
	if err != nil {
		return cmdutil.Answer{Words: append(a.Words, cmdutil.Words(templates.Names(cfg)...).Words...)}
	}
	for _, t := range all {
		a.Words = append(a.Words, cmdutil.Candidate{Word: t.Name, About: t.About})
	}
	return a
}

// hosts are the configured hosts ([hosts.NAME]).
func (v *values) hosts() cmdutil.Answer {
	cfg := v.config()
	names := make([]string, 0, len(cfg.Hosts))
	for n := range cfg.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	var a cmdutil.Answer
	for _, n := range names {
		a.Words = append(a.Words, cmdutil.Candidate{Word: n, About: cfg.Hosts[n].Address})
	}
	return a
}

// branches are this repository's local branches (one git call).
func (v *values) branches() cmdutil.Answer {
	r, ok := v.findRepo()
	if !ok {
		return cmdutil.Answer{}
	}
	set, err := r.Branches()
	if err != nil {
		return cmdutil.Answer{}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return cmdutil.Words(names...)
}

// about is a short description: status, then the start of the task.
func about(status, task string) string {
	task = strings.Join(strings.Fields(task), " ")
	if r := []rune(task); len(r) > 50 {
		task = string(r[:49]) + "…"
	}
	return strings.TrimSpace(status + "  " + task)
}
