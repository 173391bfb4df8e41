// Package proctest is test support for the code above internal/proc: a
// fake Runner that starts no program, answers each command by the rules
// a test gave it, and records every command it was asked to run, so a
// test can say what owt did (and undid) with git and tmux in
// milliseconds. Only tests import it.
package proctest

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/owt-tmux/owt/internal/proc"
)

// Call is one command owt ran, as the fake saw it.
type Call struct {
	Args  []string // the program's name, then its arguments
	Dir   string
	Stdin string
}

// String is the command as one line, for failure messages.
func (c Call) String() string { return strings.Join(c.Args, " ") }

// Reply is what a command answers: its output and how it ended. A Code
// other than 0 is an exit status (proc.ExitCode reads it); Err, when
// set, is returned as it is, as when a program cannot start.
type Reply struct {
	Stdout, Stderr string
	Code           int
	Err            error
}

// Exit is the error of a faked program that exited with Code.
type Exit struct {
	Code   int
	Stderr string
}

func (e *Exit) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode is the status, as *exec.ExitError tells it.
func (e *Exit) ExitCode() int { return e.Code }

// Fake is a proc.Runner that starts nothing. Each command is answered by
// the last rule added that matches it; a command no rule matches fails
// the test, naming it. It is safe for the goroutines a caller starts.
type Fake struct {
	t     testing.TB
	mu    sync.Mutex
	rules []*Rule
	calls []Call
}

// New makes a Fake and puts it in proc's place for the rest of t (its
// tests must not run in parallel with others that start programs).
func New(t testing.TB) *Fake {
	f := &Fake{t: t}
	t.Cleanup(proc.Use(f))
	return f
}

// Rule answers the commands that match it.
type Rule struct {
	prog  string
	args  []string
	reply func(Call) Reply
}

// On adds a rule for the commands of prog (its base name: "git") whose
// words (Call.Words) start with args[0] and hold the rest of args in
// order, not necessarily side by side: On("git", "worktree", "add")
// matches git -C /r worktree add -b b /p main, and On("git", "rev-parse",
// "--git-path") matches git rev-parse --path-format=absolute --git-path
// info/exclude. No args match every command of prog. Until told
// otherwise (Reply, Fail, Do) it succeeds with no output.
func (f *Fake) On(prog string, args ...string) *Rule {
	r := &Rule{prog: prog, args: args, reply: func(Call) Reply { return Reply{} }}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
	return r
}

// Reply makes the rule succeed with stdout.
func (r *Rule) Reply(stdout string) *Rule {
	r.reply = func(Call) Reply { return Reply{Stdout: stdout} }
	return r
}

// Fail makes the rule exit with code, saying stderr.
func (r *Rule) Fail(code int, stderr string) *Rule {
	r.reply = func(Call) Reply { return Reply{Code: code, Stderr: stderr} }
	return r
}

// Do makes the rule answer with what fn says, given the call (to act as
// the program would, e.g. make the folder git worktree add makes).
func (r *Rule) Do(fn func(Call) Reply) *Rule {
	r.reply = fn
	return r
}

func (r *Rule) matches(c Call) bool {
	if len(c.Args) == 0 || filepath.Base(c.Args[0]) != r.prog {
		return false
	}
	if len(r.args) == 0 {
		return true
	}
	words := c.Words()
	if len(words) == 0 || words[0] != r.args[0] {
		return false
	}
	rest := words[1:]
	for _, a := range r.args[1:] {
		i := slices.Index(rest, a)
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
	return true
}

// programOptions are the options of git and tmux that come before the
// command, with whether each takes a value.
var programOptions = map[string]map[string]bool{
	"git":  {"-C": true, "-c": true, "--no-pager": false, "--literal-pathspecs": false},
	"tmux": {"-u": false, "-S": true, "-L": true, "-f": true},
}

// Option is the value of one of the program's own options (git's -C
// DIR, tmux's -S SOCKET), "" when the command has none.
func (c Call) Option(name string) string {
	if len(c.Args) == 0 {
		return ""
	}
	opts := programOptions[filepath.Base(c.Args[0])]
	args := c.Args[1:]
	for len(args) > 0 {
		takesValue, ok := opts[args[0]]
		if !ok {
			return ""
		}
		if takesValue && len(args) > 1 {
			if args[0] == name {
				return args[1]
			}
			args = args[1:]
		}
		args = args[1:]
	}
	return ""
}

// Words are the command without the program and the program's own
// options (git's -C DIR and -c K=V, tmux's -u and -S SOCKET): the
// command's name first ("worktree", "add", …). Of several tmux commands
// in one call, the first leads.
func (c Call) Words() []string {
	if len(c.Args) == 0 {
		return nil
	}
	opts := programOptions[filepath.Base(c.Args[0])]
	words := c.Args[1:]
	for len(words) > 0 {
		takesValue, ok := opts[words[0]]
		if !ok {
			break
		}
		if takesValue && len(words) > 1 {
			words = words[1:]
		}
		words = words[1:]
	}
	return words
}

// Run answers cmd by the last rule that matches it, writing the reply's
// output to cmd's Stdout and Stderr, and records it.
func (f *Fake) Run(ctx context.Context, cmd *exec.Cmd) error {
	c := Call{Args: slices.Clone(cmd.Args), Dir: cmd.Dir}
	if cmd.Stdin != nil {
		in, _ := io.ReadAll(cmd.Stdin)
		c.Stdin = string(in)
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	var rule *Rule
	for i := len(f.rules) - 1; i >= 0; i-- {
		if f.rules[i].matches(c) {
			rule = f.rules[i]
			break
		}
	}
	f.mu.Unlock()
	if rule == nil {
		f.t.Errorf("proctest: no rule for %q", c.String())
		return &Exit{Code: 127, Stderr: "proctest: no rule"}
	}
	if ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: %w", c.Args[0], ctx.Err())
	}
	rep := rule.reply(c)
	if cmd.Stdout != nil {
		_, _ = io.WriteString(cmd.Stdout, rep.Stdout)
	}
	if cmd.Stderr != nil {
		_, _ = io.WriteString(cmd.Stderr, rep.Stderr)
	}
	switch {
	case rep.Err != nil:
		return rep.Err
	case rep.Code != 0:
		return &Exit{Code: rep.Code, Stderr: rep.Stderr}
	}
	return nil
}

// Calls are the commands run so far that match prog and args as On
// reads them, in the order they ran; no prog means every command.
func (f *Fake) Calls(prog string, args ...string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	if prog == "" {
		return slices.Clone(f.calls)
	}
	r := &Rule{prog: prog, args: args}
	var out []Call
	for _, c := range f.calls {
		if r.matches(c) {
			out = append(out, c)
		}
	}
	return out
}

// Ran reports whether a command matching prog and args ran.
func (f *Fake) Ran(prog string, args ...string) bool { return len(f.Calls(prog, args...)) > 0 }
