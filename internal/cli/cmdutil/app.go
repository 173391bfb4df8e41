// Package cmdutil is what every command of owt's command line shares:
// the factory (streams, the chosen tmux server, the repository), how an
// app is run (flags after arguments, usage errors, exit codes, one line
// per error on stderr), JSON output, confirmations and text made safe for
// a terminal. Commands live in the packages beside it, one per group.
package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Exit codes scripts can rely on (docs/guides/agents.md has the same
// table, and internal/docgen's test holds it to these).
const (
	ExitOK      = 0
	ExitError   = 1
	ExitUsage   = 2
	ExitUnknown = 3 // no such worktree (the NAME given has no record in this repo), or no such run
)

// CodeError ends owt with a code and an optional message (already printed
// detail goes to stderr elsewhere).
type CodeError struct {
	Code int
	Msg  string
}

func (e CodeError) Error() string { return e.Msg }

// ExitWith ends owt with code and no message of its own.
func ExitWith(code int) error { return CodeError{Code: code} }

// UsageError marks bad command-line use (exit 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a usage error saying what was wrong with the command line.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// NewApp is a urfave app run the way owt runs one, its commands sharing
// f: every bad use of a command is a usage error (exit 2), and a command
// group run without a known subcommand shows its help or says so.
func (f *Factory) NewApp(commands ...*cli.Command) *cli.App {
	app := &cli.App{
		Name:                 "owt",
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Reader:               f.IO.In,
		Writer:               f.IO.Out,
		ErrWriter:            f.IO.ErrOut,
		Action:               unknownCommand,
		Commands:             commands,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			var flags []cli.Flag
			if c != nil && c.Command != nil {
				flags = c.Command.Flags
			}
			return UsageError{flagSuggestion(err.Error(), flags)}
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
	cmds := c.App.Commands
	if c.Command != nil && len(c.Command.Subcommands) > 0 {
		cmds = c.Command.Subcommands
	}
	typed := c.Args().First()
	if hint := commandSuggestion(where, typed, cmds); hint != "" {
		return Usagef("%s has no command %q%s", where, typed, hint)
	}
	return Usagef("%s has no command %q (see '%s --help')", where, typed, where)
}

// NoArgs is the usage error of a command that takes no arguments.
func NoArgs(c *cli.Context, verb string) error {
	if c.NArg() > 0 {
		return Usagef("%s takes no arguments", verb)
	}
	return nil
}

// Execute runs args on app, built once with f, and returns the process
// exit code: interspersed reads the flags of the same commands that Run
// parses them with, and every error becomes one line on f.IO.ErrOut.
func (f *Factory) Execute(app *cli.App, args []string) int {
	quietHelp(app.Flags, app.Commands)
	if comp, ok := app.Metadata[completionKey].(Completion); ok && Completing(args) {
		return f.Complete(app, comp, args)
	}
	err := app.Run(interspersed(app, args))
	stderr := f.IO.ErrOut
	if err == nil {
		return ExitOK
	}
	var ee CodeError
	if errors.As(err, &ee) {
		if msg := strings.TrimSpace(ee.Msg); msg != "" {
			fmt.Fprintln(stderr, "owt: "+OneLine(msg))
		}
		return ee.Code
	}
	var ue UsageError
	if errors.As(err, &ue) {
		err = UsageError{flagAsTyped(ue.Msg, args)}
	}
	fmt.Fprintln(stderr, "owt: "+OneLine(err.Error()))
	switch {
	case errors.As(err, &ue), errors.Is(err, agent.ErrUnknownTool):
		return ExitUsage
	case errors.Is(err, state.ErrUnknownName), errors.Is(err, run.ErrNoSuchRun), errors.Is(err, run.ErrNoSuchTask):
		return ExitUnknown
	}
	return ExitError
}

// flagInError is a flag named in an error of Go's flag package, which
// writes it with one dash ("flag provided but not defined: -bogus").
var flagInError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(not defined: |needs an argument: |for flag |value [^ ]+ for )-([A-Za-z0-9][^\s:=]*)`)
})

// flagAsTyped names the flags in a usage error msg the way args typed
// them: "--bogus" for --bogus, "-bogus" for -bogus; a flag not found in
// args gets two dashes when its name is a word.
func flagAsTyped(msg string, args []string) string {
	// A flag no regexp can name ("-- -- --"): Go's flag package drops a
	// dash of the two typed, so put back the argument as it was.
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 && !flagInError().MatchString("not defined: -"+a[2:]) {
			msg = strings.Replace(msg, "not defined: -"+a[2:], "not defined: "+a, 1)
		}
	}
	return flagInError().ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagInError().FindStringSubmatch(m)
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

// OneLine keeps an error to one line: git and tmux sometimes say more, and
// the line that says what to do ("use 'add -f' to override", "hint: …")
// is often the last one, so lines are joined, not cut. Only a very long
// message loses its middle.
func OneLine(s string) string {
	var lines []string
	// Errors carry other programs' words (git's, gh's, a remote's): their
	// escapes and controls are not for the user's terminal.
	for _, l := range strings.Split(strings.TrimSpace(untrusted.Clean(s)), "\n") {
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

// PrintJSON writes v as indented JSON, as every --json does.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONFlag is --json, a new flag each time: urfave keeps state in a flag,
// so none is shared between commands or runs.
func JSONFlag() *cli.BoolFlag { return &cli.BoolFlag{Name: "json", Usage: "print JSON"} }

// Shown is text someone else wrote (an agent's summary, a task, a log
// detail) made safe for one line of a terminal: control characters,
// escape sequences included, are dropped and line breaks become " ⏎ ",
// so it can neither forge lines nor drive the terminal.
func Shown(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.ReplaceAll(untrusted.Clean(s), "\n", " ⏎ ")
	return strings.ReplaceAll(s, "\t", " ")
}
