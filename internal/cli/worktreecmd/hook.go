package worktreecmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/statusbar"
)

// stdinWait bounds the wait for a hook's JSON: a tool always closes stdin
// after writing it, but a hook must never hang its agent.
const stdinWait = 3 * time.Second

// HookCommand is what the agent tools run ("owt hook claude Stop"). It
// prints nothing (tools read a hook's stdout as a decision) and always
// exits 0 (a failing hook can stop the agent); problems go to owt's log.
func HookCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Hidden:          true,
		SkipFlagParsing: true,
		Usage:           "report an agent tool's hook event (run by the tools; prints nothing, always exits 0)",
		ArgsUsage:       "KIND EVENT [NOTIFY-PROGRAM…] [JSON]",
		Action: func(c *cli.Context) error {
			RunHook(f, c.Args().Slice())
			return nil
		},
	}
}

// RunHook is "owt hook" with args (KIND EVENT …): it never fails and
// prints nothing. cli.Main calls it without building the app.
func RunHook(f *cmdutil.Factory, args []string) {
	neverFail(func() { runHook(f, args) })
}

// neverFail runs the hook, turning a panic into a line in owt's log: a
// Go panic exits 2, which Claude, Droid and Gemini read as "block".
func neverFail(hook func()) {
	defer func() {
		if p := recover(); p != nil {
			owtlog.Errorf("hook", hookFields(""), "panic (the agent was not stopped): %v\n%s", p, debug.Stack())
		}
	}()
	hook()
}

// runHook is one "owt hook" with its arguments.
func runHook(f *cmdutil.Factory, args []string) {
	at := time.Now()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		owtlog.Errorf("hook", hookFields(""), "ignored: want 'owt hook KIND EVENT', got %q", args)
		return
	}
	call := status.HookCall{Kind: args[0], Event: args[1], Getenv: os.Getenv, At: at}
	call.Dir, _ = os.Getwd()
	if call.Kind == "codex" && call.Event == "notify" {
		// codex runs notify with the event JSON as the last argument;
		// anything between is the user's own notify program.
		if rest := args[2:]; len(rest) > 0 {
			call.Payload = []byte(rest[len(rest)-1])
			call.Chain = rest[:len(rest)-1]
		}
	} else {
		call.Payload = readStdin(f)
	}
	if err := status.HandleHook(f.Tmux(), call); err != nil {
		level := owtlog.Errorf
		if errors.Is(err, status.ErrHookIgnored) {
			level = owtlog.Logf
		}
		level("hook", hookFields(call.Event), "%s %s: %v", call.Kind, call.Event, err)
	}
}

// hookFields are what a hook's log entry is about: the agent of its
// environment (OWT_REPO, OWT_NAME), and its event.
func hookFields(event string) owtlog.Fields {
	f := owtlog.Fields{Repo: os.Getenv("OWT_REPO"), Agent: os.Getenv("OWT_NAME"), Event: "hook"}
	if event != "" {
		f.Event = "hook " + event
	}
	return f
}

// readStdin returns the hook's JSON, or nothing when stdin is a terminal
// (someone ran owt hook by hand) or stays open too long.
func readStdin(f *cmdutil.Factory) []byte {
	if f.IO.InTTY {
		return nil
	}
	done := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, f.IO.In)
		done <- b.Bytes()
	}()
	select {
	case data := <-done:
		return data
	case <-time.After(stdinWait):
		return nil
	}
}

// PublishCommand is the detached helper "owt hook" starts when a status
// changed: it shows the record's status in tmux while the hook has
// already returned to its agent. It takes the publish lock itself.
func PublishCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "_publish",
		Hidden:    true,
		Usage:     "show an agent's recorded status in tmux (started by owt hook)",
		ArgsUsage: "REPO NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdutil.Usagef("_publish takes REPO and NAME")
			}
			statusbar.PublishRecord(f.Tmux(), c.Args().Get(0), c.Args().Get(1))
			return nil
		},
	}
}
