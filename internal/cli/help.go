package cli

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// groups are the headings of owt --help and the commands under each, in
// the order a newcomer meets them. Every command of owt is in one group
// or in plumbing (TestEveryCommandHasAPlace).
var groups = []struct {
	name     string
	commands []string
}{
	{"Agents", []string{"new", "branch", "list", "switch", "attach", "send", "status", "why", "wait", "note", "restore", "delete", "usage"}},
	{"Landing work", []string{"check", "diff", "merge", "ship", "queue", "sync", "resolve", "pr", "dismiss", "cleanup"}},
	{"Runs", []string{"run", "plan"}},
	{"Memory and peers", []string{"memory", "messages", "swarm"}},
	{"Hosts", []string{"host"}},
	{"Setup", []string{"doctor", "tools", "templates", "config", "notify", "tmux", "completion", "uninstall"}},
}

// plumbing are the commands owt, tmux, the plugin and the agents run
// themselves: hidden from owt --help, listed by 'owt help plumbing'.
var plumbing = []string{"_run", "hook", "_publish", "monitor", "mcp", "done", "status-line", "popup", "commit", "batch", "orchestrate", "help"}

// examples are each command's examples, by its words after owt, shown
// under EXAMPLES in its help. Every command owt --help shows, and each of
// its visible subcommands, has at least one (TestEveryVisibleCommandHasAnExample).
var examples = map[string][]string{
	"new": {
		`owt new "fix the login redirect loop"`,
		`owt new "add rate limiting to the API" --tool codex --base develop --switch`,
		`owt new --issue 42 --template bugfix`,
	},
	"branch":     {`owt branch "tidy the README" --tool claude`},
	"list":       {`owt list`, `owt ls --all --json`},
	"switch":     {`owt switch fix-login`},
	"attach":     {`owt attach fix-login`},
	"send":       {`owt send fix-login "run the tests again and fix what fails"`, `owt send --idle "commit what you have"`, `git diff | owt send fix-login -`},
	"status":     {`owt status fix-login`, `owt status fix-login -n 40`},
	"why":        {`owt why fix-login`},
	"wait":       {`owt wait fix-login`, `owt wait --all --until any --timeout 30m`},
	"note":       {`owt note "the API server runs on port 8080; never edit generated/"`, `owt note`, `owt note --clear`},
	"restore":    {`owt restore --dry-run`, `owt restore --all`},
	"delete":     {`owt delete fix-login`, `owt rm fix-login --force --yes`},
	"usage":      {`owt usage`, `owt usage --by day --all`},
	"check":      {`owt check fix-login`, `owt check fix-login --into main --json`},
	"diff":       {`owt diff fix-login`, `owt diff fix-login --stat`},
	"merge":      {`owt merge fix-login`, `owt merge fix-login --squash --yes`},
	"ship":       {`owt ship fix-login -m "Fix the login redirect loop"`},
	"queue":      {`owt queue`, `owt queue --ship --yes`},
	"sync":       {`owt sync fix-login`, `owt sync --all --rebase`},
	"resolve":    {`owt resolve fix-login`, `owt resolve fix-login --status`},
	"pr":         {`owt pr fix-login --draft`},
	"dismiss":    {`owt dismiss fix-login`, `owt dismiss fix-login ci_failed`},
	"cleanup":    {`owt cleanup --dry-run`, `owt cleanup --stale 14 --yes`},
	"run":        {`owt run start plan.toml`, `owt run status`, `owt run retry plan add-tests`},
	"run start":  {`owt run start plan.toml --dry-run`, `owt run start plan.toml --name auth-rework`},
	"run list":   {`owt run list`},
	"run status": {`owt run status`, `owt run status auth-rework --json`},
	"run pause":  {`owt run pause auth-rework`},
	"run resume": {`owt run resume auth-rework`},
	"run stop":   {`owt run stop auth-rework`},
	"run retry":  {`owt run retry auth-rework add-tests`},
	"run skip":   {`owt run skip auth-rework docs`},
	"run cancel": {`owt run cancel auth-rework migrate-db`},
	"run forget": {`owt run forget auth-rework`},
	"run log":    {`owt run log auth-rework`},
	"plan":       {`owt plan "move auth to OAuth2" -o plan.toml`, `owt plan "split the monolith's billing module" --tool codex`},
	"messages":   {`owt messages`, `owt messages fix-login --json`},
	"swarm":      {`owt swarm start "add dark mode"`, `owt swarm list`},
	"swarm start": {
		`owt swarm start "add dark mode"`,
		`owt swarm start -w fix-login --workers implementer,tester "finish the login fix"`,
	},
	"swarm list":        {`owt swarm list`},
	"swarm send":        {`owt swarm send add-dark-mode "the designs are in docs/dark.md"`},
	"swarm stop":        {`owt swarm stop add-dark-mode`},
	"host":              {`owt host add gpu1 me@gpu1.lan:22 --repo ~/src/app=~/src/app`, `owt host list`},
	"host add":          {`owt host add gpu1 me@gpu1.lan --repo ~/src/app=~/src/app --max-agents 4`},
	"host list":         {`owt host list`},
	"host check":        {`owt host check gpu1`},
	"host fetch":        {`owt host fetch fix-login@gpu1`},
	"host remove":       {`owt host remove gpu1`},
	"doctor":            {`owt doctor`, `owt doctor --fix`},
	"tools":             {`owt tools`, `owt tools --json`},
	"tools codex-hooks": {`owt tools codex-hooks`, `owt tools codex-hooks --remove`},
	"templates":         {`owt templates`},
	"config":            {`owt config show`, `owt config validate`},
	"config show":       {`owt config show`},
	"config validate":   {`owt config validate`},
	"notify":            {`owt notify test`, `owt notify test webhook --json`},
	"notify test":       {`owt notify test`, `owt notify test terminal`},
	"tmux":              {`owt tmux keys`},
	"tmux init":         {`owt tmux init`},
	"tmux keys":         {`owt tmux keys --json`},
	"uninstall":         {`owt uninstall --dry-run`, `owt uninstall`, `owt uninstall --keep-worktrees`},
	"completion": {
		`eval "$(owt completion bash)"    # in ~/.bashrc`,
		`eval "$(owt completion zsh)"     # in ~/.zshrc`,
		`owt completion fish | source     # in ~/.config/fish/config.fish`,
	},
}

// shapeHelp groups app's commands under headings in its help, hides the
// plumbing, and gives each command its examples.
func shapeHelp(app *cli.App) {
	hidden := map[string]bool{}
	for _, n := range plumbing {
		hidden[n] = true
	}
	category := map[string]string{}
	for _, g := range groups {
		for _, n := range g.commands {
			category[n] = g.name
		}
	}
	for _, c := range app.Commands {
		if hidden[c.Name] {
			c.Hidden = true
		}
		c.Category = category[c.Name]
	}
	cmdutil.SetExamples(app.Commands, examples)
	app.CustomAppHelpTemplate = appHelpTemplate(app)
	if app.Command("help") != nil && cli.HelpFlag != nil {
		// urfave gives the app --help only when it has no command called
		// help; owt has one (owt help plumbing), and keeps --help too.
		app.Flags = append(app.Flags, cli.HelpFlag)
	}
}

// appHelpTemplate is urfave's help of the app with the commands under
// owt's headings, in owt's order (urfave sorts categories by name), and a
// last line saying where the rest is.
func appHelpTemplate(app *cli.App) string {
	width := 0
	for _, c := range app.Commands {
		if !c.Hidden {
			width = max(width, len(strings.Join(c.Names(), ", ")))
		}
	}
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "   %s:\n", g.name)
		for _, n := range g.commands {
			if c := app.Command(n); c != nil && !c.Hidden {
				fmt.Fprintf(&b, "     %-*s  %s\n", width, strings.Join(c.Names(), ", "), c.Usage)
			}
		}
	}
	listing := b.String()
	const footer = "\nRun 'owt COMMAND --help' for a command's options and examples. " +
		"'owt help plumbing' lists the commands owt, tmux and the agents run themselves.\n"
	tmpl := cli.AppHelpTemplate
	start := strings.Index(tmpl, "{{if .VisibleCommands}}")
	end := strings.Index(tmpl, "{{if .VisibleFlagCategories}}")
	if start < 0 || end < start {
		return "" // urfave's own template changed shape: its own help, ungrouped
	}
	return tmpl[:start] + "\n\nCOMMANDS:\n{{" + strconv.Quote(strings.TrimRight(listing, "\n")) + "}}" +
		tmpl[end:] + "{{" + strconv.Quote(footer) + "}}"
}

// helpCommand is owt help: owt's help, a command's ('owt help run
// status'), or the plumbing's ('owt help plumbing').
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help: owt's, a command's (owt help COMMAND…), or the plumbing's (owt help plumbing)",
		ArgsUsage: "[COMMAND... | plumbing]",
		Action: func(c *cli.Context) error {
			switch {
			case c.NArg() == 0:
				return cli.ShowAppHelp(c)
			case c.NArg() == 1 && c.Args().First() == "plumbing":
				return printPlumbing(c)
			}
			var at *cli.Command
			cmds := c.App.Commands
			for _, word := range c.Args().Slice() {
				at = nil
				for _, cmd := range cmds {
					if cmd.HasName(word) {
						at = cmd
					}
				}
				if at == nil {
					return cmdutil.Usagef("owt has no command %q (see 'owt --help')", strings.Join(c.Args().Slice(), " "))
				}
				cmds = at.Subcommands
			}
			return c.App.Run(append(append([]string{"owt"}, c.Args().Slice()...), "--help"))
		},
	}
}

// printPlumbing lists the hidden commands with what each is for.
func printPlumbing(c *cli.Context) error {
	w := c.App.Writer
	fmt.Fprintln(w, "Plumbing: commands owt, tmux, the plugin and the agents run themselves; owt --help leaves them out.")
	fmt.Fprintln(w, "Each has its own help (owt COMMAND --help).")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, n := range plumbing {
		if cmd := c.App.Command(n); cmd != nil && n != "help" {
			fmt.Fprintf(tw, "   %s\t%s\n", n, cmd.Usage)
		}
	}
	return tw.Flush()
}
