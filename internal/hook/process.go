package hook

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/tmux"
)

// stdinWait bounds the wait for a hook's JSON: a tool always closes stdin
// after writing it, but a hook must never hang its agent.
var stdinWait = 3 * time.Second

// Run is one hook with args (KIND EVENT …) on the tmux server at socket
// ("" for the default): it never fails and prints nothing. stdin holds
// the event JSON unless it is a terminal (inTTY: someone ran it by hand).
func Run(socket string, args []string, in io.Reader, inTTY bool) {
	neverFail(func() { hook(socket, args, in, inTTY) })
}

// neverFail runs the hook, turning a panic into a line in owt's log: a
// Go panic exits 2, which Claude, Droid and Gemini read as "block".
func neverFail(hook func()) {
	defer func() {
		if p := recover(); p != nil {
			owtlog.Errorf("hook", fields(""), "panic (the agent was not stopped): %v\n%s", p, debug.Stack())
		}
	}()
	hook()
}

// hook is Run's body.
func hook(socket string, args []string, in io.Reader, inTTY bool) {
	at := time.Now()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		owtlog.Errorf("hook", fields(""), "ignored: want 'owt hook KIND EVENT', got %q", args)
		return
	}
	call := Call{Kind: args[0], Event: args[1], Getenv: os.Getenv, At: at}
	call.Dir, _ = os.Getwd()
	if call.Kind == "codex" && call.Event == "notify" {
		// codex runs notify with the event JSON as the last argument;
		// anything between is the user's own notify program.
		if rest := args[2:]; len(rest) > 0 {
			call.Payload = []byte(rest[len(rest)-1])
			call.Chain = rest[:len(rest)-1]
		}
	} else if !inTTY {
		call.Payload = readStdin(in)
	}
	tm := tmux.New()
	tm.Socket = socket
	if err := Handle(tm, call); err != nil {
		level := owtlog.Errorf
		if errors.Is(err, ErrIgnored) {
			level = owtlog.Logf
		}
		level("hook", fields(call.Event), "%s %s: %v", call.Kind, call.Event, err)
	}
}

// fields are what a hook's log entry is about: the agent of its
// environment (OWT_REPO, OWT_NAME), and its event.
func fields(event string) owtlog.Fields {
	f := owtlog.Fields{Repo: os.Getenv("OWT_REPO"), Agent: os.Getenv("OWT_NAME"), Event: "hook"}
	if event != "" {
		f.Event = "hook " + event
	}
	return f
}

// readStdin returns the hook's JSON, all of in, or nothing when in stays
// open longer than stdinWait: a tool closes stdin once it has written the
// event, but a hook must never hang its agent.
func readStdin(in io.Reader) []byte {
	got := make(chan []byte, 1)
	go func() {
		data, _ := io.ReadAll(in)
		got <- data
	}()
	select {
	case data := <-got:
		return data
	case <-time.After(stdinWait):
		return nil
	}
}
