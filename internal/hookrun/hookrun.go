// Package hookrun is the process an agent tool starts for each of its
// hook events: "owt hook KIND EVENT", and owt-hook, the same thing in a
// program of its own. The agent waits for it on every turn, so owt's
// hook settings run owt-hook when it is installed beside owt: a binary
// of the hook path alone starts about a third of a millisecond sooner
// than owt, whose every other command it does not load.
//
// A hook prints nothing (tools read a hook's stdout as a decision) and
// always exits 0 (a failing hook can stop the agent); problems go to
// owt's log. Imports hookstatus, tmux and owtlog only: what it links is
// what every hook pays to start (owt-hook's test holds the list).
package hookrun

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/hookstatus"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/tmux"
)

// SocketEnv names a tmux server socket for owt run outside tmux, like
// tmux -S (inside tmux, $TMUX names the server, as it does for tmux).
const SocketEnv = "OWT_TMUX_SOCKET"

// stdinWait bounds the wait for a hook's JSON: a tool always closes stdin
// after writing it, but a hook must never hang its agent.
var stdinWait = 3 * time.Second

// DefaultSocket is the tmux server owt talks to when no -L or -S names
// one: "" (the server owt runs inside, else tmux's default) inside tmux,
// else $OWT_TMUX_SOCKET's, made absolute.
func DefaultSocket() string {
	if tmux.Inside() {
		return ""
	}
	socket := os.Getenv(SocketEnv)
	if socket != "" {
		if abs, err := filepath.Abs(socket); err == nil {
			socket = abs
		}
	}
	return socket
}

// Main is a whole hook process, for owt-hook: args are its os.Args
// ("owt-hook hook KIND EVENT …", as owt's hook settings write it for owt
// and owt-hook alike; the word "hook" may be left out). A change no
// monitor takes is published by the owt beside owt-hook ("owt _publish"):
// showing a record in tmux is the status bar's, which owt-hook does not
// link. "owt-hook _publish REPO NAME" is handed to that owt too.
func Main(args []string, in io.Reader, inTTY bool) int {
	// Nothing reads a hook's memory profile: sampling its allocations
	// (a stack walk each) is time its agent waits for.
	runtime.MemProfileRate = 0
	args = args[1:]
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	owt := owtBeside()
	owtlog.SetFormatSource(func() string { return askLogFormat(owt) })
	handToNewerOwt(owt, args)
	if len(args) > 0 && args[0] == "_publish" {
		err := syscall.Exec(owt, append([]string{owt}, args...), os.Environ())
		owtlog.Errorf("hook", fields(""), "hand _publish to %s: %v", owt, err)
		return 0
	}
	neverFail(func() { hook(DefaultSocket(), owt, args, in, inTTY) })
	return 0
}

// owtBeside is the owt in owt-hook's own directory ("" when owt-hook
// cannot tell where it is).
func owtBeside() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(self), "owt")
}

// askLogFormat is owt.log's format as owt says it ("owt _log-format"):
// owt-hook links no config to read the user's [log] format itself, and
// asks only when it has a line to write (an error, an ignored event).
// An owt that does not answer leaves the line text.
func askLogFormat(owt string) string {
	if owt == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, owt, "_log-format").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// askTimeout bounds the wait for owt's answer: the agent waits for the
// hook.
const askTimeout = 2 * time.Second

// skewAllowance is how much later than owt-hook the owt beside it may
// have been written and still count as the same install (make install,
// the plugin and owt host add write owt first or within moments).
const skewAllowance = 10 * time.Minute

// handToNewerOwt hands the hook (exec, same stdin) to owt, the owt
// beside this owt-hook, when that owt was written well after it: owt
// updated alone (go install, a copied binary, a release archive without
// owt-hook), whose records this owt-hook would write with an older idea
// of them. args are the hook's arguments after "hook". It returns when
// there is no such owt.
func handToNewerOwt(owt string, args []string) {
	if owt == "" {
		return
	}
	owtInfo, err := os.Stat(owt)
	if err != nil || !owtInfo.Mode().IsRegular() || owtInfo.Mode()&0o111 == 0 {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	if selfInfo, err := os.Stat(self); err == nil && owtInfo.ModTime().After(selfInfo.ModTime().Add(skewAllowance)) {
		argv := append([]string{owt}, args...)
		if len(args) == 0 || args[0] != "_publish" {
			argv = append([]string{owt, "hook"}, args...)
		}
		err := syscall.Exec(owt, argv, os.Environ())
		owtlog.Errorf("hook", fields(""), "hand the hook to %s, newer than owt-hook: %v", owt, err)
	}
}

// Run is one hook with args (KIND EVENT …) on the tmux server at socket
// ("" for the default): it never fails and prints nothing. stdin holds
// the event JSON unless it is a terminal (inTTY: someone ran it by hand).
func Run(socket string, args []string, in io.Reader, inTTY bool) {
	neverFail(func() { hook(socket, "", args, in, inTTY) })
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

// hook is Run's body; a change no monitor takes is published by a
// detached "_publish" of publisher (owt; "": this program).
func hook(socket, publisher string, args []string, in io.Reader, inTTY bool) {
	at := time.Now()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		owtlog.Errorf("hook", fields(""), "ignored: want 'owt hook KIND EVENT', got %q", args)
		return
	}
	call := hookstatus.Call{Kind: args[0], Event: args[1], Getenv: os.Getenv, At: at, Publisher: publisher}
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
	if err := hookstatus.Handle(tm, call); err != nil {
		level := owtlog.Errorf
		if errors.Is(err, hookstatus.ErrIgnored) {
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
