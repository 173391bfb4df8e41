package mcpcmd

// owt memory: the user's door to the repository's memory and to what owt
// does with it (package memory/facts).

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/memory"

	"github.com/owt-tmux/owt/internal/memory/facts"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Command is owt memory and its subcommands.
func MemoryCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "memory",
		Usage: "the repository's memory: facts every new agent starts with (add, search, list, forget, mine, consolidate, reports)",
		Subcommands: []*cli.Command{
			addCommand(f), searchCommand(f), listCommand(f), forgetCommand(f),
			mineCommand(f), consolidateCommand(f), reportsCommand(f), injectCommand(f),
		},
	}
}

// MemoryExamples are the examples of owt memory and its commands, by their
// words after owt, shown in their help.
var MemoryExamples = map[string][]string{
	"memory":             {`owt memory list`, `owt memory add --pin "tests need REDIS_URL set"`, `owt memory search redis`},
	"memory add":         {`owt memory add "the API server listens on 8080"`, `owt memory add --kind convention --pin "never edit generated/"`},
	"memory search":      {`owt memory search redis timeout`, `owt memory search --limit 5 --json login`},
	"memory list":        {`owt memory list`, `owt memory list --kind gotcha`},
	"memory forget":      {`owt memory forget 12`},
	"memory mine":        {`owt memory mine`},
	"memory consolidate": {`owt memory consolidate`},
	"memory reports":     {`owt memory reports --limit 1`},
}

// open opens the memory of the current repository.
func open(f *cmdutil.Factory) (*workspace.Workspace, *facts.DB, error) {
	w, err := openWorkspace(f)
	if err != nil {
		return nil, nil, err
	}
	db, err := facts.Open(w.Repo.Root)
	if err != nil {
		return nil, nil, err
	}
	return w, db, nil
}

func kindFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "kind", Usage: "the fact's `KIND`: decision, convention, gotcha or fact"}
}

func addCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "remember a fact (TEXT, or - for stdin); --pin gives it to every new agent",
		ArgsUsage: "TEXT... | -",
		Flags:     []cli.Flag{kindFlag(), &cli.BoolFlag{Name: "pin", Usage: "every new agent gets it, whatever its task"}, cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			txt := strings.Join(c.Args().Slice(), " ")
			if txt == "-" {
				data, err := io.ReadAll(io.LimitReader(f.IO.In, facts.MaxText+1))
				if err != nil {
					return err
				}
				if len(data) > facts.MaxText {
					return cmdutil.Usagef("memory add: the text on stdin is more than %d bytes; a fact is at most that", facts.MaxText)
				}
				txt = string(data)
			}
			kind, err := facts.ParseKind(c.String("kind"))
			if err != nil {
				return cmdutil.Usagef("%v", err)
			}
			if _, err := facts.CheckText(txt); err != nil {
				return cmdutil.Usagef("%v", err)
			}
			_, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			it, err := db.Add(txt, kind, c.Bool("pin"), facts.Source{From: "user"}, time.Now())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, it)
			}
			fmt.Fprintf(f.IO.Out, "remembered #%d (%s)\n", it.ID, it.Kind)
			return nil
		},
	}
}

func searchCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "facts matching QUERY, best first",
		ArgsUsage: "QUERY...",
		Flags:     []cli.Flag{&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most `N` facts"}, cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			q := strings.Join(c.Args().Slice(), " ")
			if len(facts.Words(q)) == 0 {
				return cmdutil.Usagef("memory search needs a QUERY with words")
			}
			if c.Int("limit") < 1 {
				return cmdutil.Usagef("--limit must be 1 or more")
			}
			_, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			hits, err := db.Search(q, c.Int("limit"))
			if err != nil {
				return err
			}
			return printItems(f, c, hits, "nothing in memory matches "+strconv.Quote(untrusted.CleanLine(q)))
		},
	}
}

func listCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "every fact, pinned first, newest first",
		Flags: []cli.Flag{kindFlag(), cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("memory list takes no arguments")
			}
			var kind facts.Kind
			if c.String("kind") != "" {
				k, err := facts.ParseKind(c.String("kind"))
				if err != nil {
					return cmdutil.Usagef("%v", err)
				}
				kind = k
			}
			_, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			items, err := db.List(kind)
			if err != nil {
				return err
			}
			return printItems(f, c, items, "memory is empty: owt memory add \"TEXT\", or owt memory mine")
		},
	}
}

func printItems(f *cmdutil.Factory, c *cli.Context, items []facts.Item, empty string) error {
	if items == nil {
		items = []facts.Item{}
	}
	if c.Bool("json") {
		return cmdutil.PrintJSON(f.IO.Out, items)
	}
	if len(items) == 0 {
		fmt.Fprintln(f.IO.Out, empty)
		return nil
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tAGE\tSOURCE\tTEXT")
	now := time.Now()
	for _, it := range items {
		kind := string(it.Kind)
		if it.Pinned {
			kind += "*"
		}
		src := it.Source.From
		if it.Source.Agent != "" {
			src += ":" + it.Source.Agent
		}
		line := untrusted.From(it.Text).Short(70)
		if it.Stale != "" {
			line += " (stale: " + untrusted.From(it.Stale).Short(40) + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", it.ID, kind, workspace.Age(now.Sub(it.Created)), untrusted.CleanLine(src), line)
	}
	return tw.Flush()
}

func forgetCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "delete the fact ID",
		ArgsUsage: "ID",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("memory forget takes one ID")
			}
			id, err := strconv.ParseInt(strings.TrimPrefix(c.Args().First(), "#"), 10, 64)
			if err != nil || id < 1 {
				return cmdutil.Usagef("memory forget: %q is not a fact's ID (owt memory list shows them)", c.Args().First())
			}
			_, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			ok, err := db.Forget(id)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("no fact #%d", id)
			}
			fmt.Fprintf(f.IO.Out, "forgot #%d\n", id)
			return nil
		},
	}
}

func mineCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "mine",
		Usage: "add what agents and you already wrote: done summaries, the note, delivered review comments, explained commits",
		Flags: []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			w, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			m, err := facts.Mine(w, db, time.Now())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, m)
			}
			fmt.Fprintf(f.IO.Out, "mined %d new fact(s): done summaries %d, note %d, review comments %d, commits %d\n",
				m.Total(), m.Done, m.Note, m.Review, m.Commits)
			return nil
		},
	}
}

func consolidateCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "consolidate",
		Usage: "mine, merge duplicates, mark stale facts, report contradictions and stale worktrees",
		Flags: []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			w, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := facts.Consolidate(w, db, time.Now())
			if err != nil {
				_ = memory.SaveFailed(w.Repo.Root, time.Now(), err)
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, rep)
			}
			for _, l := range rep.Lines() {
				fmt.Fprintln(f.IO.Out, l)
			}
			return nil
		},
	}
}

func reportsCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "reports",
		Usage: "what the last consolidations found, newest first",
		Flags: []cli.Flag{&cli.IntFlag{Name: "limit", Value: 5, Usage: "the last `N` reports"}, cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			_, db, err := open(f)
			if err != nil {
				return err
			}
			defer db.Close()
			reps, err := db.Reports(c.Int("limit"))
			if err != nil {
				return err
			}
			var out []facts.Report
			for _, r := range reps {
				rep, err := facts.ParseReport(r.Body)
				if err != nil {
					return errors.New("a memory report is unreadable: " + err.Error())
				}
				out = append(out, rep)
			}
			if out == nil {
				out = []facts.Report{}
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, out)
			}
			if len(out) == 0 {
				fmt.Fprintln(f.IO.Out, "no consolidation yet: owt memory consolidate")
				return nil
			}
			for _, rep := range out {
				fmt.Fprintf(f.IO.Out, "%s\n", rep.At.Local().Format("2006-01-02 15:04"))
				for _, l := range rep.Lines() {
					fmt.Fprintf(f.IO.Out, "  %s\n", untrusted.CleanLine(l))
				}
			}
			return nil
		},
	}
}

// openWorkspace opens the current repository as owt-mcp sees it: the
// program its sessions and hooks run is owt, beside it.
func openWorkspace(f *cmdutil.Factory) (*workspace.Workspace, error) {
	w, err := f.OpenWorkspace()
	if err != nil {
		return nil, err
	}
	if w.Self, err = memory.Owt(); err != nil {
		return nil, err
	}
	return w, nil
}

// injectCommand is "memory _inject", owt's way (memory.Inject) to give a
// new agent its facts: owt itself does not link the memory.
func injectCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_inject",
		Hidden: true,
		Usage:  "write the facts for an agent's task into its worktree (owt new runs it)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the agent's worktree; none with --dry-run: an agent not made yet"},
			&cli.StringFlag{Name: "task", Usage: "the task, when it is not the record's (a swarm's goal)"},
			&cli.StringFlag{Name: "tool", Usage: "the tool, when it is not the record's"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say which facts it would write (owt new --dry-run); write nothing"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			w, err := openWorkspace(f)
			if err != nil {
				return err
			}
			rec := &state.Record{Name: "the new agent", Repo: w.Repo.Root}
			switch {
			case c.String("name") != "":
				if rec, err = w.Get(c.String("name")); err != nil {
					return err
				}
			case !c.Bool("dry-run"):
				return cmdutil.Usagef("memory _inject writes into a worktree: --name NAME, or --dry-run")
			}
			if t := c.String("task"); t != "" {
				rec.Task, rec.NoAgent = t, false
			}
			if t := c.String("tool"); t != "" {
				rec.Tool = t
			}
			inj := facts.Inject(w, rec, c.Bool("dry-run"))
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, inj)
			}
			if inj.Line != "" {
				fmt.Fprintln(f.IO.Out, inj.Line)
			}
			return nil
		},
	}
}
