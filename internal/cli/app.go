// Package cli is owt's command line: one file per command group, each
// turning flags into a call into the core and the result into a table or
// JSON. No logic of its own lives here.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Version is set at build time with -ldflags "-X …cli.Version=…".
var Version = "dev"

// Exit codes scripts can rely on.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
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

// App builds the owt command.
func App() *cli.App {
	app := &cli.App{
		Name:                 "owt",
		Usage:                "run many AI coding agents in parallel, each in its own git worktree and tmux session",
		Version:              Version,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		Commands: []*cli.Command{
			newCommand(),
			listCommand(),
			switchCommand(),
			attachCommand(),
			sendCommand(),
			deleteCommand(),
			checkCommand(), mergeCommand(), shipCommand(), queueCommand(), syncCommand(), cleanupCommand(), doctorCommand(), noteCommand(),
			toolsCommand(),
			configCommand(),
			runCommand(),
			hookCommand(),
			publishCommand(),
			monitorCommand(),
			statusCommand(),
			waitCommand(),
			tmuxCommand(),
			popupCommand(),
			statusLineCommand(),
			completionCommand(),
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err.Error()}
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
	}
	return app
}

// Main runs owt with args and returns the process exit code. Every error
// becomes one line on stderr.
func Main(args []string, stderr io.Writer) int {
	err := App().Run(interspersed(App(), args))
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
	fmt.Fprintln(stderr, "owt: "+oneLine(err.Error()))
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

// oneLine keeps an error to one line: git and tmux sometimes say more.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// openWorkspace opens the repository of the current directory.
func openWorkspace() (*workspace.Workspace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(wd, tmux.New())
	if err != nil {
		return nil, err
	}
	return w, nil
}

// namedRecord opens the current repository and finds the worktree named
// by the command's one argument; verb names the command in the usage error.
func namedRecord(c *cli.Context, verb string) (*workspace.Workspace, *state.Record, error) {
	if c.NArg() != 1 {
		return nil, nil, usagef("%s takes one NAME", verb)
	}
	w, err := openWorkspace()
	if err != nil {
		return nil, nil, err
	}
	rec, err := w.Get(c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	return w, rec, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON"}

// interspersed moves a command's flags in front of its arguments, so
// "owt delete NAME --force" works as people type it (urfave/cli stops at
// the first argument). Everything after "--" stays an argument.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmd, path := app.Command(args[1]), 2
	if cmd == nil {
		return args
	}
	for len(cmd.Subcommands) > 0 && path < len(args) {
		sub := cmd.Command(args[path])
		if sub == nil {
			break
		}
		cmd, path = sub, path+1
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	// For commands whose arguments end in free text (owt send NAME TEXT…),
	// a flag-like word after the first argument is part of the text:
	// "owt send a fix --all the tests" must not send to every agent.
	freeText := cmd.Name == "send" || cmd.Name == "note"
	var flags, rest []string
	rem := args[path:]
	for i := 0; i < len(rem); i++ {
		a := rem[i]
		if a == "--" || (freeText && len(rest) > 0) {
			rest = append(rest, rem[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name = name[:eq]
		}
		value, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || a == "-" || !known {
			if strings.HasPrefix(a, "-") && a != "-" && len(rest) == 0 {
				flags = append(flags, a) // let urfave report the unknown flag
				continue
			}
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		if value && !strings.Contains(a, "=") && i+1 < len(rem) {
			flags = append(flags, rem[i+1])
			i++
		}
	}
	out := append([]string{}, args[:path]...)
	out = append(out, flags...)
	if len(rest) > 0 && rest[0] != "--" {
		out = append(out, "--")
	}
	return append(out, rest...)
}
