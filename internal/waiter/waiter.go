// Package waiter is what stays of owt in an agent's pane while the agent
// runs: owt _run starts the agent, sees it take its task, then replaces
// itself with owt-wait (this package), which waits for the agent — its
// child still, across the exec — and hands its exit code back to
// "owt _run --exited CODE" for the record and the shell that follows.
//
// owt is a few MiB of memory per process (its packages' start-up state);
// a hundred agents kept a hundred of them alive for nothing but a wait.
// owt-wait imports nothing but the standard library's process calls, and
// runs with one P and no collector (Env): ~0.5 MiB a pane.
package waiter

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// tuned names, in owt-wait's environment, the variables Env added: owt-wait
// removes them again from the environment it hands on.
const tuned = "OWT_WAIT_TUNED"

// lean is the Go runtime's settings for a process that only waits: one
// P, so one thread's stacks and caches fewer, and no collector (it
// allocates nothing after start): ~140 KiB of the ~640 KiB of its own
// memory each agent's pane kept (issue 36: ≤ 0.5 MiB an agent).
var lean = [][2]string{{"GOMAXPROCS", "1"}, {"GOGC", "off"}}

// Env is the environment owt _run starts owt-wait with: env, with the
// runtime's settings lean where the user set none. owt-wait hands env
// on as it was (HandedOn) to the program it runs next, so the agent's
// shell that follows never sees them.
func Env(env []string) []string {
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	if set[tuned] {
		return env
	}
	out := append([]string(nil), env...)
	var added []string
	for _, kv := range lean {
		if !set[kv[0]] {
			out = append(out, kv[0]+"="+kv[1])
			added = append(added, kv[0])
		}
	}
	if len(added) == 0 {
		return env
	}
	return append(out, tuned+"="+strings.Join(added, ","))
}

// HandedOn is env without what Env added to it.
func HandedOn(env []string) []string {
	var added []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, tuned+"="); ok {
			added = append(strings.Split(v, ","), tuned)
		}
	}
	if added == nil {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, a := range added {
			drop = drop || k == a
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// Usage is how owt-wait is run (by owt _run only).
const Usage = "usage: owt-wait PID PROGRAM [ARG]... (run by owt _run: waits for its agent PID, then runs PROGRAM ARGs with the exit code appended)"

// Main is owt-wait with its arguments (os.Args): it waits for the child
// PID to end, continuing it whenever it is stopped (Ctrl-Z: there is no
// shell here to resume it with fg), then replaces itself with PROGRAM
// ARGs… CODE, where CODE is the exit code (128+N for signal N). It
// returns only when that cannot run, with the code to exit with.
func Main(args []string) int {
	if len(args) < 3 {
		os.Stderr.WriteString(Usage + "\n")
		return 2
	}
	pid, err := strconv.Atoi(args[1])
	if err != nil || pid <= 0 {
		os.Stderr.WriteString(Usage + "\n")
		return 2
	}
	// Ctrl-C in the pane is the agent's (its group is in the foreground).
	signal.Ignore(os.Interrupt, syscall.SIGQUIT)
	code, err := Wait(pid)
	if err != nil {
		os.Stderr.WriteString("owt-wait: " + err.Error() + "\n")
	}
	argv := append(append([]string(nil), args[2:]...), strconv.Itoa(code))
	err = syscall.Exec(args[2], argv, HandedOn(os.Environ()))
	os.Stderr.WriteString("owt-wait: run " + args[2] + ": " + err.Error() + "\n")
	return code
}

// Wait waits for the child pid to end and returns its exit code (128+N
// for signal N). A stopped child is continued at once, its process group
// too, so the pane never freezes.
func Wait(pid int) (int, error) {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 1, errors.New("wait for the agent: " + err.Error())
		}
		if code, ended := Ended(pid, ws); ended {
			return code, nil
		}
	}
}

// Ended reads one wait status of pid: the exit code once it ended;
// a stop continues it and is not an end.
func Ended(pid int, ws syscall.WaitStatus) (int, bool) {
	switch {
	case ws.Stopped():
		_ = syscall.Kill(-pid, syscall.SIGCONT) // its group, when it leads one
		_ = syscall.Kill(pid, syscall.SIGCONT)
	case ws.Signaled():
		return 128 + int(ws.Signal()), true
	case ws.Exited():
		return ws.ExitStatus(), true
	}
	return 0, false
}
