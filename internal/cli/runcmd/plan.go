package runcmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/run"
)

// planOptions is one owt plan: the goal, the tool to ask and where the
// plan goes. Repo, Profile and Ask reach the repository, the config and
// the tool; a test hands in its own.
type planOptions struct {
	IO     *cmdutil.IOStreams
	Goal   string
	Output string // -o FILE; "" prints the plan
	Tool   string // --tool; "" is [agent] tool
	Force  bool

	Repo    func() (git.Repo, error)                 // the repository plans are made in
	Profile func(tool string) (agent.Profile, error) // the tool to ask (planTool)
	Ask     func(p agent.Profile, dir, prompt string, log io.Writer) (string, error)
}

// PlanCommand is owt plan: an AI tool, run headless in the repository,
// writes a plan file for a goal; owt holds it to the plan parser. runF
// runs the options (nil: planRun).
func PlanCommand(f *cmdutil.Factory, runF func(*planOptions) error) *cli.Command {
	if runF == nil {
		runF = planRun
	}
	return &cli.Command{
		Name:      "plan",
		Usage:     "ask an AI tool (headless, in this repository) to break a goal into a plan file for 'owt run start'",
		ArgsUsage: "GOAL",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the plan to `FILE` (default: print it)"},
			&cli.StringFlag{Name: "tool", Usage: "the `TOOL` to ask (default: [agent] tool)"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite FILE if it exists"},
		},
		Action: func(c *cli.Context) error {
			o := &planOptions{
				IO:      f.IO,
				Goal:    strings.TrimSpace(strings.Join(c.Args().Slice(), " ")),
				Output:  c.String("output"),
				Tool:    c.String("tool"),
				Force:   c.Bool("force"),
				Repo:    repoHere,
				Profile: planTool,
				Ask:     agent.Profile.RunHeadless,
			}
			if err := o.check(); err != nil {
				return err
			}
			return runF(o)
		},
	}
}

// check refuses, before any tool is asked, a plan that could not be
// written: no goal, -o naming a directory or (without --force) a file.
func (o *planOptions) check() error {
	if o.Goal == "" {
		return cmdutil.Usagef("plan takes a GOAL, e.g. owt plan \"add login with tokens\" -o auth.toml")
	}
	out := o.Output
	if fi, err := os.Stat(out); out != "" && err == nil && fi.IsDir() {
		return cmdutil.Usagef("%s is a directory: give -o a file", out)
	}
	if out != "" && !o.Force {
		if _, err := os.Lstat(out); err == nil {
			return cmdutil.Usagef("%s exists: give --force to overwrite it, or another -o FILE", out)
		}
	}
	return nil
}

// repoHere is the repository of the current directory.
func repoHere() (git.Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return git.Repo{}, err
	}
	repo, err := git.FindRepo(wd)
	if err != nil {
		return repo, fmt.Errorf("owt plan works in a git repository: %w", err)
	}
	return repo, nil
}

// planRun asks the tool, holds its answer to the plan parser, and prints
// or writes the plan; an answer that is not a valid plan is kept.
func planRun(o *planOptions) error {
	repo, err := o.Repo()
	if err != nil {
		return err
	}
	prof, err := o.Profile(o.Tool)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "owt: asking %s to plan (headless, in %s)…\n", prof.Name, repo.Root)
	answer, err := o.Ask(prof, repo.Root, run.DraftPrompt(o.Goal), o.IO.ErrOut)
	if err != nil {
		return keptAnswer(answer, err.Error())
	}
	data := []byte(run.PlanFromAnswer(answer))
	p, err := run.Parse(prof.Name+"'s plan", data)
	if err == nil {
		if ps := unknownTools(p); len(ps) > 0 {
			err = ps
		}
	}
	var ps config.Problems
	if errors.As(err, &ps) {
		for _, pr := range ps {
			fmt.Fprintln(o.IO.ErrOut, "owt: "+pr.Error())
		}
		return keptAnswer(answer, fmt.Sprintf("%s's plan is not valid (%d problem(s) above); nothing written", prof.Name, len(ps)))
	}
	if err != nil {
		return err
	}
	if o.Output == "" {
		_, err := o.IO.Out.Write(data)
		return err
	}
	if err := writePlan(o.Output, data, o.Force); err != nil {
		// The tool's answer cost a call: never lost to a file that could
		// not be written.
		return keptAnswer(string(data), err.Error())
	}
	fmt.Fprintf(o.IO.Out, "wrote %s: %s; start it with 'owt run start %s'\n", o.Output, p.String(), o.Output)
	return nil
}

// planTool is the profile of the tool to ask: --tool, else [agent] tool.
func planTool(name string) (agent.Profile, error) {
	cfg, root, err := cmdutil.LoadConfig()
	if err != nil {
		return agent.Profile{}, cmdutil.ConfigProblem(root, err)
	}
	profiles, err := agent.Profiles(cfg)
	if err != nil {
		return agent.Profile{}, cmdutil.ConfigProblem(root, err)
	}
	if name == "" {
		name = cfg.Agent.Tool
	}
	prof, err := agent.Resolve(profiles, name)
	if errors.Is(err, agent.ErrUnknownTool) {
		return prof, cmdutil.Usagef("%v", err)
	}
	if err != nil {
		return prof, err
	}
	if len(prof.Headless) == 0 {
		return prof, cmdutil.Usagef("tool %q has no headless mode: give --tool with one that has (see 'owt tools')", prof.Name)
	}
	return prof, nil
}

// keptAnswer keeps the tool's raw answer in a temp file, says where, and
// ends owt with exit 1 and msg.
func keptAnswer(answer, msg string) error {
	f, err := os.CreateTemp("", "owt-plan-answer-*.txt")
	if err == nil {
		_, err = f.WriteString(answer)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("%s; the tool's answer could not be kept: %v", msg, err)
	}
	return fmt.Errorf("%s; the tool's answer is kept in %s", msg, f.Name())
}

// writePlan writes the plan to path: a new file, or with force in place
// of an existing one (a temp file renamed over it, so a reader never sees
// half a plan).
func writePlan(path string, data []byte, force bool) error {
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return cmdutil.Usagef("%s exists: give --force to overwrite it, or another -o FILE", path)
		}
		if err != nil {
			return fmt.Errorf("write plan: %w", err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path)
			return fmt.Errorf("write plan %s: %w", path, err)
		}
		return nil
	}
	// Replace what the path names, not the path: through a symlink to its
	// target, and into a device or pipe (-o /dev/stdout) by writing to it
	// — a rename over /dev/null would replace the device with a file.
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a directory: give -o a file", path)
	case err == nil && !fi.Mode().IsRegular():
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("write plan %s: %w", path, err)
		}
		return nil
	}
	if err := atomicfile.Replace(path, data, 0o600); err != nil {
		return fmt.Errorf("write plan %s: %w", path, err)
	}
	if fi == nil {
		return os.Chmod(path, 0o644) // new: readable as a plan written without --force is
	}
	return nil
}

// OrchestrateCommand is the seed's owt orchestrate FILE --into BRANCH:
// owt run start, with the branch done tasks land in given on the command
// line.
func OrchestrateCommand(f *cmdutil.Factory) *cli.Command {
	c := runStartCommand(f, "orchestrate")
	c.Usage = "the same as 'owt run start FILE', done tasks landing in --into BRANCH (the name older tools used)"
	c.Flags = append(c.Flags, &cli.StringFlag{Name: "into", Usage: "land done tasks in `BRANCH` (made from the base if missing), in place of the plan's into"})
	start := c.Action
	c.Action = func(c *cli.Context) error {
		if into := c.String("into"); into != "" && !git.ValidBranchName(into) {
			return cmdutil.Usagef("--into %q is not a branch name git accepts", into)
		}
		return start(c)
	}
	return c
}
