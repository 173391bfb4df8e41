// Package hookrun is the process an agent tool starts for each of its
// hook events: "owt hook KIND EVENT", and owt-hook, the same thing in a
// program of its own. The agent waits for it on every turn, so owt's
// hook settings run owt-hook when it is installed beside owt: a binary
// of the hook path alone starts about a third of a millisecond sooner
// than owt, whose every other command it does not load.
//
// A hook prints nothing (tools read a hook's stdout as a decision) and
// always exits 0 (a failing hook can stop the agent); problems go to
// owt's log. Imports status, statusbar, tmux and owtlog only.
package hookrun

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/statusbar"
	"github.com/owt-tmux/owt/internal/tmux"
)

// SocketEnv names a tmux server socket for owt run outside tmux, like
// tmux -S (inside tmux, $TMUX names the server, as it does for tmux).
const SocketEnv = "OWT_TMUX_SOCKET"

// stdinWait bounds the wait for a hook's JSON: a tool always closes stdin
// after writing it, but a hook must never hang its agent.
const stdinWait = 3 * time.Second

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
// and owt-hook alike; the word "hook" may be left out), or
// "owt-hook _publish REPO NAME", the detached publisher a hook starts
// when no monitor takes its ring.
func Main(args []string, in io.Reader, inTTY bool) int {
	args = args[1:]
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	handToNewerOwt(args)
	if len(args) == 3 && args[0] == "_publish" {
		tm := tmux.New()
		tm.Socket = DefaultSocket()
		statusbar.PublishRecord(tm, args[1], args[2])
		return 0
	}
	neverFail(func() { hook(DefaultSocket(), args, in, inTTY) })
	return 0
}

// skewAllowance is how much later than owt-hook the owt beside it may
// have been written and still count as the same install (make install,
// the plugin and owt host add write owt first or within moments).
const skewAllowance = 10 * time.Minute

// handToNewerOwt hands the hook (exec, same stdin) to the owt beside
// this owt-hook when that owt was written well after it: owt updated
// alone (go install, a copied binary, a release archive without
// owt-hook), whose records this owt-hook would write with an older idea
// of them. args are the hook's arguments after "hook". It returns when
// there is no such owt.
func handToNewerOwt(args []string) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	owt := filepath.Join(filepath.Dir(self), "owt")
	owtInfo, err := os.Stat(owt)
	if err != nil || !owtInfo.Mode().IsRegular() || owtInfo.Mode()&0o111 == 0 {
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

// hook is Run's body; a change no monitor takes is published by a
// detached "_publish" of this program (owt or owt-hook).
func hook(socket string, args []string, in io.Reader, inTTY bool) {
	at := time.Now()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		owtlog.Errorf("hook", fields(""), "ignored: want 'owt hook KIND EVENT', got %q", args)
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
	} else if !inTTY {
		call.Payload = readStdin(in)
	}
	tm := tmux.New()
	tm.Socket = socket
	if err := status.HandleHook(tm, call); err != nil {
		level := owtlog.Errorf
		if errors.Is(err, status.ErrHookIgnored) {
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

// readStdin returns the hook's JSON, or nothing when stdin stays open
// too long.
func readStdin(in io.Reader) []byte {
	done := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, in)
		done <- b.Bytes()
	}()
	select {
	case data := <-done:
		return data
	case <-time.After(stdinWait):
		return nil
	}
}
