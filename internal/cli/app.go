// Package cli is owt's command line: one file per command group, each
// turning flags into a call into the core and the result into a table or
// JSON. No logic of its own lives here.
//
// Main builds the urfave app once, around a factory that holds the
// IOStreams the entry gave it and the tmux server chosen by -L/-S; every
// command gets the factory when it is built, and nothing lives in package
// globals. A command with logic of its own (send, new, plan, queue) turns
// its flags into an options struct and hands it to a run function, as gh's
// commands do, so a test runs it in-process with buffers for streams.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/text"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Version is set at build time with -ldflags "-X …cli.Version=…".
var Version = "dev"

// Exit codes scripts can rely on (the README has the same table).
const (
	ExitOK      = 0
	ExitError   = 1
	ExitUsage   = 2
	ExitUnknown = 3 // no such worktree (the NAME given has no record in this repo), or no such run
)

// exitError ends owt with a code and an optional message (already printed
// detail goes to stderr elsewhere).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func exitWith(code int) error { return exitError{code: code} }

// usageError marks bad command-line use (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// app builds the owt command, its commands sharing f.
func (f *factory) app() *cli.App {
	app := &cli.App{
		Name:                 "owt",
		Usage:                "run many AI coding agents in parallel, each in its own git worktree and tmux session",
		Version:              Version,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Flags:                serverFlags(),
		Before:               f.chooseServer,
		Reader:               f.io.In,
		Writer:               f.io.Out,
		ErrWriter:            f.io.ErrOut,
		Action:               unknownCommand,
		Commands: []*cli.Command{
			newCommand(f, nil),
			listCommand(f),
			switchCommand(f),
			attachCommand(f),
			sendCommand(f, nil),
			deleteCommand(f),
			checkCommand(f), mergeCommand(f), shipCommand(f), queueCommand(f, nil), syncCommand(f), cleanupCommand(f), doctorCommand(f), noteCommand(f),
			toolsCommand(f),
			configCommand(f),
			runsCommand(f), batchCommand(f), orchestrateCommand(f), planCommand(f, nil), doneCommand(f), prCommand(f), dismissCommand(f),
			runCommand(f),
			hookCommand(f),
			publishCommand(f),
			monitorCommand(f),
			statusCommand(f),
			waitCommand(f),
			tmuxCommand(f),
			popupCommand(f), diffCommand(f),
			statusLineCommand(f),
			completionCommand(f),
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err.Error()}
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, c := range app.Commands {
		guardUsage(c, app.OnUsageError)
	}
	return app
}

// guardUsage makes every bad use of c and its subcommands a usage error:
// a flag urfave rejects, and a subcommand that does not exist (urfave's
// own answer, "No help topic", would exit 1).
func guardUsage(c *cli.Command, onUsage cli.OnUsageErrorFunc) {
	c.OnUsageError = onUsage
	if len(c.Subcommands) > 0 && c.Action == nil {
		c.Action = unknownCommand
	}
	for _, sub := range c.Subcommands {
		guardUsage(sub, onUsage)
	}
}

// unknownCommand is the action of owt and of a command group run without
// a known subcommand: help when none was named, else a usage error.
func unknownCommand(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowSubcommandHelp(c)
	}
	where := "owt"
	if c.Command != nil && c.Command.HelpName != "" {
		where = c.Command.HelpName
	}
	return usagef("%s has no command %q (see '%s --help')", where, c.Args().First(), where)
}

// noArgs is the usage error of a command that takes no arguments.
func noArgs(c *cli.Context, verb string) error {
	if c.NArg() > 0 {
		return usagef("%s takes no arguments", verb)
	}
	return nil
}

// Main runs owt with args on the streams ios and returns the process exit
// code. Every error becomes one line on ios.ErrOut.
func Main(args []string, ios *IOStreams) int {
	f := &factory{io: ios}
	return f.execute(f.app(), args)
}

// execute runs args on app, built once with f: interspersed reads the
// flags of the same commands that Run parses them with.
func (f *factory) execute(app *cli.App, args []string) int {
	err := app.Run(interspersed(app, args))
	stderr := f.io.ErrOut
	if err == nil {
		return ExitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if msg := strings.TrimSpace(ee.msg); msg != "" {
			fmt.Fprintln(stderr, "owt: "+oneLine(msg))
		}
		return ee.code
	}
	var ue usageError
	if errors.As(err, &ue) {
		err = usageError{flagAsTyped(ue.msg, args)}
	}
	fmt.Fprintln(stderr, "owt: "+oneLine(err.Error()))
	switch {
	case errors.As(err, &ue), errors.Is(err, agent.ErrUnknownTool):
		return ExitUsage
	case errors.Is(err, workspace.ErrUnknownName), errors.Is(err, run.ErrNoSuchRun), errors.Is(err, run.ErrNoSuchTask):
		return ExitUnknown
	}
	return ExitError
}

// flagInError is a flag named in an error of Go's flag package, which
// writes it with one dash ("flag provided but not defined: -bogus").
var flagInError = regexp.MustCompile(`(not defined: |needs an argument: |for flag |value [^ ]+ for )-([A-Za-z0-9][^\s:=]*)`)

// flagAsTyped names the flags in a usage error msg the way args typed
// them: "--bogus" for --bogus, "-bogus" for -bogus; a flag not found in
// args gets two dashes when its name is a word.
func flagAsTyped(msg string, args []string) string {
	// A flag no regexp can name ("-- -- --"): Go's flag package drops a
	// dash of the two typed, so put back the argument as it was.
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 && !flagInError.MatchString("not defined: -"+a[2:]) {
			msg = strings.Replace(msg, "not defined: -"+a[2:], "not defined: "+a, 1)
		}
	}
	return flagInError.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagInError.FindStringSubmatch(m)
		lead, name := sub[1], sub[2]
		dashes := "--"
		if len(name) == 1 {
			dashes = "-"
		}
		for _, a := range args {
			given := strings.TrimLeft(a, "-")
			if eq := strings.IndexByte(given, '='); eq >= 0 {
				given = given[:eq]
			}
			if given == name && strings.HasPrefix(a, "-") && a != given {
				dashes = a[:len(a)-len(strings.TrimLeft(a, "-"))]
				break
			}
		}
		return lead + dashes + name
	})
}

// oneLine keeps an error to one line: git and tmux sometimes say more, and
// the line that says what to do ("use 'add -f' to override", "hint: …")
// is often the last one, so lines are joined, not cut. Only a very long
// message loses its middle.
func oneLine(s string) string {
	var lines []string
	// Errors carry other programs' words (git's, gh's, a remote's): their
	// escapes and controls are not for the user's terminal.
	for _, l := range strings.Split(strings.TrimSpace(text.Clean(s)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	const keep = 6 // lines kept at each end of a long message
	if len(lines) > 2*keep+1 {
		cut := fmt.Sprintf("… (%d more lines) …", len(lines)-2*keep)
		lines = append(append(lines[:keep:keep], cut), lines[len(lines)-keep:]...)
	}
	return strings.Join(lines, " ")
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonFlag is --json, a new flag each time: urfave keeps state in a flag,
// so none is shared between commands or runs.
func jsonFlag() *cli.BoolFlag { return &cli.BoolFlag{Name: "json", Usage: "print JSON"} }

// shown is text someone else wrote (an agent's summary, a task, a log
// detail) made safe for one line of a terminal: control characters,
// escape sequences included, are dropped and line breaks become " ⏎ ",
// so it can neither forge lines nor drive the terminal.
func shown(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.ReplaceAll(text.Clean(s), "\n", " ⏎ ")
	return strings.ReplaceAll(s, "\t", " ")
}
