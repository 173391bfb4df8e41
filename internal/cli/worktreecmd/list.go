package worktreecmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

func ListCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list this repo's agents (--all: every repo)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every repository, with a REPO column"},
			&cli.BoolFlag{Name: "fresh", Usage: fmt.Sprintf("recompute git figures now instead of reusing ones up to %d s old (kept while the branch, its base and the agent's status are unchanged), or older ones the monitor keeps up to date while it watches the worktree; figures the monitor is working out again show as pending (the last ones, with their age)", int(lifecycle.StatsTTL/time.Second))},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("list takes no arguments")
			}
			var recs []*state.Record
			tm := f.Tmux()
			root := ""
			var cfg config.Config
			if c.Bool("all") {
				var err error
				if recs, err = workspace.AllRecords(); err != nil {
					return err
				}
				cfg, _ = config.Load("") // the hosts are the user's: no repository needed
			} else {
				w, err := f.OpenWorkspace()
				if err != nil {
					return err
				}
				if recs, err = w.Records(); err != nil {
					return err
				}
				tm = w.Tmux
				root, cfg = w.Repo.Root, w.Config
			}
			items := lifecycle.Collect(tm, recs, lifecycle.ListOptions{Fresh: c.Bool("fresh")})
			items = append(items, remoteItems(f.IO, cfg, root, c.Bool("all"), c.Bool("fresh"))...)
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, items)
			}
			printTable(f.IO, items, c.Bool("all"))
			return nil
		},
	}
}

func printTable(ios *cmdutil.IOStreams, items []lifecycle.Item, withRepo bool) {
	if len(items) == 0 {
		fmt.Fprintln(ios.ErrOut, "no agents here; start one with: owt new \"TASK\"")
		return
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	head := []string{"NAME", "BRANCH", "STATUS", "TOOL", "AGE", "CHANGES"}
	withUsage, withHost := false, false
	for _, it := range items {
		withUsage = withUsage || it.Usage != nil && it.Usage.TotalTokens > 0
		withHost = withHost || it.Host != ""
	}
	if withUsage { // only once some agent has usage: a list of shells stays narrow
		head = append(head[:5], "TOKENS", "COST", "CHANGES")
	}
	if withHost {
		head = append([]string{"HOST"}, head...)
	}
	if withRepo {
		head = append([]string{"REPO"}, head...)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	now := time.Now()
	listed := map[state.Key]bool{}
	for _, it := range items {
		listed[state.Key{Repo: it.Repo, Name: it.Name}] = true
	}
	for _, it := range items {
		tool := it.Tool
		if tool == "" {
			tool = "shell"
		}
		status := it.Status
		if it.Status == string(state.Exited) && it.ExitCode != nil {
			status = fmt.Sprintf("exited(%d)", *it.ExitCode)
		}
		switch {
		case it.Status == string(state.Waiting) && it.WaitingFor != "":
			status += " (" + it.WaitingFor + ")"
		case it.Status == string(state.Limited):
			status += " (" + it.Limit.Why(time.Now()) + ")"
		case !it.TurnError.Empty():
			status += " (turn failed: " + cmdutil.Shown(it.TurnError.Block()) + ")"
		case it.Interrupted:
			status += " (interrupted)"
		}
		switch {
		case it.Creating == "in-progress":
			status += " (being created)"
		case it.Creating == "interrupted":
			status += " (interrupted: see owt doctor)"
		case it.Where == "other-server":
			status += " (on another tmux server)"
		case it.Where == "gone":
			status += " (no session)"
		}
		if it.InPlace {
			status += " (in place)"
		}
		if len(it.SetupFailed) > 0 {
			status += " (setup failed: " + setupSteps(it.SetupFailed) + "; owt why " + it.Name + ")"
		}
		if it.Unreachable {
			status = "unreachable (last " + status + seenAgo(it.SeenAt, now) + ")"
		}
		if len(it.NeedsYou) > 0 {
			status += " (needs you: " + cmdutil.Shown(strings.Join(it.NeedsYou, "; ")) + ")"
		}
		status += resolveNote(it.Resolve)
		name := it.Name
		if it.Spawner != "" && listed[state.Key{Repo: it.Repo, Name: it.Spawner}] {
			name = "└ " + name // under its spawner (state.Sorted)
		}
		row := []string{name, it.Branch, status, tool, workspace.Age(now.Sub(it.CreatedAt))}
		if withUsage {
			row = append(row, usageColumns(it.Usage)...)
		}
		row = append(row, changes(it)+prColumn(it.PR))
		if withHost {
			host := it.Host
			if host == "" {
				host = "local"
			}
			row = append([]string{host}, row...)
		}
		if withRepo {
			row = append([]string{it.Repo}, row...)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	_ = tw.Flush()
}

// usageColumns are the TOKENS and COST of a list row: every token the
// provider counted (input, output, cache writes and reads) and their
// estimated cost; "-" for an agent with none read (its usage windows
// alone, read before its first tokens, are no tokens).
func usageColumns(u *usage.Summary) []string {
	if u == nil || u.TotalTokens == 0 {
		return []string{"-", "-"}
	}
	return []string{usage.FormatTokens(u.TotalTokens), usage.FormatCost(u)}
}

func changes(it lifecycle.Item) string {
	if it.FiguresPending && it.FiguresAt == nil {
		return "pending"
	}
	if it.Missing {
		return "worktree missing" + pendingNote(it)
	}
	s := fmt.Sprintf("+%d -%d", it.Insertions, it.Deletions)
	if it.Ahead > 0 {
		s += fmt.Sprintf(", %d commit(s)", it.Ahead)
	}
	if it.Dirty > 0 {
		s += fmt.Sprintf(", %d uncommitted", it.Dirty)
	}
	return s + pendingNote(it)
}

// pendingNote says the figures shown are the last ones, being worked out
// again by the monitor: " (pending; 2m ago)".
func pendingNote(it lifecycle.Item) string {
	if !it.FiguresPending || it.FiguresAt == nil {
		return ""
	}
	return " (pending; " + workspace.Age(time.Since(*it.FiguresAt)) + " ago)"
}

// prColumn is the branch's pull request in a list row: ", PR #12 open,
// checks fail, changes requested". Its state and review are gh's text:
// shown inert, so an escape sequence in them never reaches the terminal.
func prColumn(pr *state.PR) string {
	if pr == nil {
		return ""
	}
	return ", PR " + cmdutil.Shown(pr.Summary())
}

// resolveNote is owt resolve's word on a row: READY TO SHIP only once owt
// verified the agent's work.
func resolveNote(r *state.Resolving) string {
	switch {
	case r == nil:
		return ""
	case r.Ready():
		return " (resolved: READY TO SHIP)"
	case !r.Told:
		return " (resolve: its agent was not told)"
	case r.Verdict != "":
		return " (resolve not ready: " + cmdutil.Shown(r.Verdict) + ")"
	}
	return " (resolving conflicts with " + r.Target + ")"
}

// setupSteps names the failed setup steps ("node (npm): exit status 1"
// → "node (npm)").
func setupSteps(failed []string) string {
	names := make([]string, len(failed))
	for i, f := range failed {
		names[i], _, _ = strings.Cut(f, ": ")
	}
	return cmdutil.Shown(strings.Join(names, ", "))
}
