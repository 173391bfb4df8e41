package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// visibleCommands are owt's commands as its help shows them, each with
// its words after owt: the ones owt --help lists and their visible
// subcommands.
func visibleCommands(t *testing.T) (all, visible [][]string) {
	t.Helper()
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	a := app(f, commands(f))
	hidden := map[string]bool{}
	cmdutil.Walk(a.Commands, func(path []string, c *cli.Command) {
		key := strings.Join(path, " ")
		all = append(all, path)
		if c.Hidden || hidden[strings.Join(path[:len(path)-1], " ")] {
			hidden[key] = true
			return
		}
		visible = append(visible, path)
	})
	return all, visible
}

// helpOf is what owt PATH --help prints.
func helpOf(t *testing.T, path []string) string {
	t.Helper()
	out, errOut, code := runOwt(t, "", nil, append(append([]string{}, path...), "--help")...)
	if code != 0 {
		t.Fatalf("owt %s --help: exit %d: %s", strings.Join(path, " "), code, errOut)
	}
	return out
}

// owt --help lists the commands a user types under headings and leaves
// the plumbing out, saying where it is.
func TestHelpGroupsCommandsAndHidesPlumbing(t *testing.T) {
	out := helpOf(t, nil)
	for _, heading := range []string{"Agents:", "Landing work:", "Runs:", "Memory and peers:", "Hosts:", "Setup:"} {
		if !strings.Contains(out, "\n   "+heading+"\n") {
			t.Errorf("owt --help has no heading %q:\n%s", heading, out)
		}
	}
	if !(strings.Index(out, "Agents:") < strings.Index(out, "Landing work:") && strings.Index(out, "Landing work:") < strings.Index(out, "Setup:")) {
		t.Errorf("owt --help's headings are out of order:\n%s", out)
	}
	for _, want := range []string{"     new ", "     list, ls ", "     merge ", "     run ", "     host ", "     completion "} {
		if !strings.Contains(out, want) {
			t.Errorf("owt --help does not list %q:\n%s", strings.TrimSpace(want), out)
		}
	}
	for _, p := range plumbing {
		if regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p) + `\s`).MatchString(out) {
			t.Errorf("owt --help lists plumbing command %q:\n%s", p, out)
		}
	}
	if !strings.Contains(out, "owt help plumbing") {
		t.Errorf("owt --help does not say where the plumbing is:\n%s", out)
	}
	out, _, code := runOwt(t, "", nil, "help", "plumbing")
	if code != 0 {
		t.Fatalf("owt help plumbing: exit %d", code)
	}
	for _, p := range []string{"monitor", "mcp", "done", "status-line", "popup", "batch", "orchestrate", "hook", "_run"} {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p) + `\s+\S`).MatchString(out) {
			t.Errorf("owt help plumbing does not list %q:\n%s", p, out)
		}
	}
}

// Every command is under one heading of owt --help or in the plumbing:
// a new command has to be placed.
func TestEveryCommandHasAPlace(t *testing.T) {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	placed := map[string]int{}
	for _, g := range groups {
		for _, n := range g.commands {
			placed[n]++
		}
	}
	for _, n := range plumbing {
		placed[n]++
	}
	for _, c := range commands(f) {
		if placed[c.Name] != 1 {
			t.Errorf("command %q is in %d of owt --help's groups and the plumbing, not 1", c.Name, placed[c.Name])
		}
		delete(placed, c.Name)
	}
	for n := range placed {
		t.Errorf("groups or plumbing name %q, which owt does not have", n)
	}
}

// Every command the help shows has an example in its help.
func TestEveryVisibleCommandHasAnExample(t *testing.T) {
	_, visible := visibleCommands(t)
	for _, path := range visible {
		if path[0] == "memory" {
			continue // owt-mcp prints owt memory's help: mcpcmd's tests check it
		}
		out := helpOf(t, path)
		i := strings.Index(out, "\nEXAMPLES:\n   ")
		if i < 0 {
			t.Errorf("owt %s --help has no example:\n%s", strings.Join(path, " "), out)
			continue
		}
		if !strings.Contains(out[i:], "owt "+strings.Join(path, " ")) && !strings.Contains(out[i:], "owt "+strings.Join(path[len(path)-1:], " ")) {
			t.Errorf("owt %s --help's examples do not use it:\n%s", strings.Join(path, " "), out[i:])
		}
	}
	for key := range examples {
		found := false
		for _, path := range visible {
			found = found || strings.Join(path, " ") == key
		}
		if !found {
			t.Errorf("examples has %q, which is not a visible command", key)
		}
	}
}

// No command's help, plumbing's included, says "(default: false)", shows
// a default twice, or names a flag's value "value".
func TestNoNoiseInAnyCommandsHelp(t *testing.T) {
	all, _ := visibleCommands(t)
	all = append(all, nil) // owt --help itself
	defaults := regexp.MustCompile(`default`)
	for _, path := range all {
		if len(path) > 0 && (path[0] == "hook" || path[0] == "mcp" || path[0] == "memory") {
			continue // owt hook takes the tool's argv as it is; mcp and memory are owt-mcp's
		}
		out := helpOf(t, path)
		name := strings.TrimSpace("owt " + strings.Join(path, " "))
		for _, line := range strings.Split(out, "\n") {
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "-") {
				continue
			}
			if strings.Contains(line, "(default: false)") {
				t.Errorf("%s --help: %q", name, trimmed)
			}
			if len(defaults.FindAllString(line, -1)) > 1 {
				t.Errorf("%s --help says a default twice: %q", name, trimmed)
			}
			if regexp.MustCompile(`-[a-z0-9-]+ value\b`).MatchString(line) {
				t.Errorf("%s --help names a placeholder 'value': %q", name, trimmed)
			}
		}
	}
}

// A mistyped command or flag gets one line naming the closest one, exit 2.
func TestMistypedCommandsAndFlagsGetASuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lsit"}, `owt: owt has no command "lsit"; did you mean 'owt list'?`},
		{[]string{"new", "--tol", "codex", "fix it"}, "owt: flag provided but not defined: --tol; did you mean --tool?"},
		{[]string{"run", "stauts"}, `owt: owt run has no command "stauts"; did you mean 'owt run status'?`},
		{[]string{"--trac", "list"}, "owt: flag provided but not defined: --trac; did you mean --trace?"},
	} {
		out, errOut, code := runOwt(t, "", nil, c.args...)
		if code != 2 || out != "" || errOut != c.want+"\n" {
			t.Errorf("owt %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
	// Nothing close: no guess, the usual pointer to the help.
	_, errOut, code := runOwt(t, "", nil, "xyzzy")
	if code != 2 || errOut != "owt: owt has no command \"xyzzy\" (see 'owt --help')\n" {
		t.Errorf("owt xyzzy: exit %d, stderr %q", code, errOut)
	}
}

// Reference lists every command with its flags, as a generated CLI
// reference needs them.
func TestReferenceListsCommandsFlagsAndExamples(t *testing.T) {
	refs := Reference()
	byPath := map[string]CommandRef{}
	for _, r := range refs {
		byPath[strings.Join(r.Path, " ")] = r
	}
	newRef, ok := byPath["new"]
	if !ok || newRef.Group != "Agents" || newRef.Plumbing || len(newRef.Examples) == 0 {
		t.Fatalf("Reference's owt new: %+v", newRef)
	}
	var tool *FlagRef
	for i, fl := range newRef.Flags {
		if fl.Names[0] == "tool" {
			tool = &newRef.Flags[i]
		}
		if fl.Names[0] == "spec-stdin" {
			t.Errorf("Reference lists owt new's hidden --spec-stdin")
		}
	}
	if tool == nil || tool.Placeholder != "TOOL" || strings.Contains(tool.Usage, "`") {
		t.Errorf("Reference's owt new --tool: %+v", tool)
	}
	if r := byPath["run status"]; r.Group != "" || r.Plumbing || len(r.Examples) == 0 {
		t.Errorf("Reference's owt run status: %+v", r)
	}
	if r := byPath["monitor"]; !r.Plumbing {
		t.Errorf("Reference's owt monitor is not plumbing: %+v", r)
	}
	if r := byPath["host stream"]; !r.Plumbing {
		t.Errorf("Reference's owt host stream is not plumbing: %+v", r)
	}
}

// Every flag an example uses is one its command has.
func TestExamplesUseRealFlags(t *testing.T) {
	f := &cmdutil.Factory{IO: &cmdutil.IOStreams{}}
	a := app(f, commands(f))
	for key, exs := range examples {
		for _, ex := range exs {
			words := shellWords(ex)
			if len(words) == 0 || words[0] != "owt" {
				continue // a pipe or an eval around owt
			}
			var cmd *cli.Command
			cmds := a.Commands
			for _, w := range words[1:] {
				if strings.HasPrefix(w, "-") {
					name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
					if cmd == nil || w == "-" {
						continue
					}
					found := name == "help" || name == "h"
					for _, fl := range cmd.Flags {
						found = found || slices.Contains(fl.Names(), name)
					}
					if !found {
						t.Errorf("example of %q, %q: owt %s has no flag %s", key, ex, cmd.Name, w)
					}
					continue
				}
				for _, c := range cmds {
					if c.HasName(w) {
						cmd, cmds = c, c.Subcommands
						break
					}
				}
			}
			if cmd == nil || !strings.HasPrefix(strings.Join(words[1:], " "), key) && !slices.Contains(cmd.Names(), strings.Fields(key)[len(strings.Fields(key))-1]) {
				t.Errorf("example of %q, %q, runs another command", key, ex)
			}
		}
	}
}

// shellWords splits an example as a shell would: double-quoted words
// whole, a # comment dropped.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, any := false, false
	for _, r := range s {
		switch {
		case r == '"':
			in, any = !in, true
		case r == '#' && !in:
			return words
		case r == ' ' && !in:
			if any {
				words = append(words, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(r)
			any = true
		}
	}
	if any {
		words = append(words, cur.String())
	}
	return words
}
