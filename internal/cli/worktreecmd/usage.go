package worktreecmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/usage"
)

// usageReport is what owt usage --json prints.
type usageReport struct {
	By         string         `json:"by"`
	Groups     []*usage.Group `json:"groups"`
	Total      *usage.Group   `json:"total"`
	PricesAsOf string         `json:"prices_as_of"`
	// Limits are each agent's usage windows where its tool reports them.
	Limits []usage.AgentLimits `json:"limits"`
}

// UsageCommand is owt usage: the tokens the agents used and what they
// cost, from the usage files the monitor keeps (it reads no session
// file itself).
func UsageCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "usage",
		Usage: "tokens and estimated cost of this repo's agents (--by agent|run|day; --all: every repo), and their 5-hour and weekly usage windows where the tool reports them",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "by", Value: usage.ByAgent, Usage: "group by `KEY`: agent, run or day"},
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every repository"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("usage takes no arguments")
			}
			by := c.String("by")
			switch by {
			case usage.ByAgent, usage.ByRun, usage.ByDay:
			default:
				return cmdutil.Usagef("--by takes agent, run or day, not %q", by)
			}
			var files []*usage.File
			prices := map[string]map[string]config.Price{}
			if c.Bool("all") {
				var err error
				if files, err = usage.AllFiles(); err != nil {
					return err
				}
			} else {
				w, err := f.OpenWorkspace()
				if err != nil {
					return err
				}
				uf, err := usage.ForRepo(w.Repo.Root).Load()
				if err != nil {
					fmt.Fprintln(f.IO.ErrOut, "owt: warning: "+err.Error())
				}
				files = []*usage.File{uf}
				prices[w.Repo.Root] = w.Config.Prices
			}
			priceOf := func(repo string) map[string]config.Price {
				if p, ok := prices[repo]; ok {
					return p
				}
				cfg, err := config.Load(repo)
				if err != nil {
					cfg = config.Defaults() // a broken config costs nothing here: the defaults price it
				}
				prices[repo] = cfg.Prices
				return cfg.Prices
			}
			groups, total := usage.Report(files, by, priceOf, runOf(by))
			now := time.Now()
			limits := usage.LimitsReport(files, now)
			if c.Bool("json") {
				if limits == nil {
					limits = []usage.AgentLimits{}
				}
				return cmdutil.PrintJSON(c.App.Writer, usageReport{By: by, Groups: groups, Total: total, PricesAsOf: config.PricesAsOf, Limits: limits})
			}
			printUsage(f.IO, by, groups, total)
			printLimits(f.IO, limits, now)
			return nil
		},
	}
}

// runOf names the run whose task each agent is, from the registered runs.
func runOf(by string) func(repo, name string) string {
	if by != usage.ByRun {
		return func(string, string) string { return "" }
	}
	runs, _ := run.DefaultStore().List()
	m := map[state.Key]string{}
	for _, r := range runs {
		for _, t := range r.Tasks {
			if t.Name != "" {
				m[state.Key{Repo: r.Repo, Name: t.Name}] = r.Name
			}
		}
	}
	return func(repo, name string) string { return m[state.Key{Repo: repo, Name: name}] }
}

func printUsage(ios *cmdutil.IOStreams, by string, groups []*usage.Group, total *usage.Group) {
	if len(groups) == 0 {
		fmt.Fprintf(ios.ErrOut, "no token usage read yet (the monitor reads %s)\n", usage.ReadsFrom)
		return
	}
	// Figures align right; the first column is padded to one width, so
	// it reads left-aligned.
	keys := make([]string, len(groups)+2)
	keys[0], keys[len(keys)-1] = strings.ToUpper(by), "total"
	for i, g := range groups {
		keys[i+1] = g.Key
		if g.Repo != "" {
			keys[i+1] = g.Repo + ": " + g.Key
		}
		keys[i+1] = cmdutil.Shown(keys[i+1])
	}
	width := 0
	for _, k := range keys {
		width = max(width, utf8.RuneCountInString(k))
	}
	pad := func(k string) string { return k + strings.Repeat(" ", width-utf8.RuneCountInString(k)) }
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, pad(keys[0])+"\tINPUT\tOUTPUT\tCACHE WRITE\tCACHE READ\tTOTAL\tCOST\t")
	line := func(key string, g *usage.Group) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pad(key), usage.FormatTokens(g.Input), usage.FormatTokens(g.Output),
			usage.FormatTokens(g.CacheWrite), usage.FormatTokens(g.CacheRead), usage.FormatTokens(g.TotalTokens), usage.FormatCost(g.Summary()))
	}
	for i, g := range groups {
		line(keys[i+1], g)
	}
	line("total", total)
	_ = tw.Flush()
	if len(total.Unpriced) > 0 {
		fmt.Fprintf(ios.ErrOut, "no price for %s: add [prices.\"MODEL\"] to your config (dollars per million tokens)\n", strings.Join(total.Unpriced, ", "))
	}
	fmt.Fprintf(ios.ErrOut, "estimated at list prices as of %s: check your provider\n", config.PricesAsOf)
}

// printLimits prints each agent's usage windows after the tokens: used
// share and when it resets, 5-hour and weekly first.
func printLimits(ios *cmdutil.IOStreams, limits []usage.AgentLimits, now time.Time) {
	if len(limits) == 0 {
		return
	}
	var windows []string
	seen := map[string]bool{}
	for _, a := range limits {
		for _, l := range a.Windows {
			if !seen[l.Window] {
				seen[l.Window] = true
				windows = append(windows, l.Window)
			}
		}
	}
	ws := usage.Limits{}
	for _, w := range windows {
		ws = append(ws, usage.Limit{Window: w})
	}
	ws = usage.Sorted(ws)
	fmt.Fprintln(ios.Out)
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	head := "AGENT\tTOOL"
	for _, w := range ws {
		head += "\t" + strings.ToUpper(w.Window) + " USED\tRESETS"
	}
	fmt.Fprintln(tw, head+"\tSEEN")
	for _, a := range limits {
		key := a.Agent
		if a.Repo != "" {
			key = a.Repo + ": " + a.Agent
		}
		row := cmdutil.Shown(key) + "\t" + cmdutil.Shown(a.Tool)
		var last time.Time
		for _, w := range ws {
			l, ok := a.Windows.Of(w.Window)
			if !ok {
				row += "\t-\t-"
				continue
			}
			row += "\t" + usage.FormatPercent(l.UsedPercent) + "\t" + usage.FormatReset(l.ResetsAt, now)
			if l.SeenAt.After(last) {
				last = l.SeenAt
			}
		}
		fmt.Fprintln(tw, row+"\t"+usage.FormatAgo(last, now))
	}
	_ = tw.Flush()
}
