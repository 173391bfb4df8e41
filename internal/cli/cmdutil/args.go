package cmdutil

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Why owt reorders its arguments itself: urfave/cli v2 parses a command's
// flags with Go's flag package, which stops at the first argument, so
// "owt delete NAME --force" would take --force as a second NAME. urfave
// dropped its own reordering in v2 (urfave/cli#398) and has no option to
// bring it back; v3 parses flags after arguments, but even v3 could not
// keep free text free: "owt send NAME fix --all the tests" must send the
// words "--all the tests", not send to every agent. So this file stays,
// as small as that takes: it only moves a command's known flags in front
// of a "--" that guards the arguments, and urfave does all the parsing.

// interspersed moves a command's flags in front of its arguments, so
// "owt delete NAME --force" works as people type it (urfave/cli stops at
// the first argument). Everything after "--" stays an argument.
func interspersed(app *cli.App, args []string) []string {
	if n := len(args); n > 0 && args[n-1] == "--generate-bash-completion" {
		return args // shell completion: urfave wants it last, after the words typed so far
	}
	at := commandIndex(app, args)
	if at >= len(args) {
		return args
	}
	cmd, path := app.Command(args[at]), at+1
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
	if cmd.SkipFlagParsing {
		return args // owt hook: the tool's argv, a chained notify program's flags included
	}
	takesValue := valueFlags(cmd.Flags)
	// For commands whose arguments end in free text (owt send NAME TEXT…),
	// a flag-like word after the first argument is part of the text:
	// "owt send a fix --all the tests" must not send to every agent.
	freeText := cmd.Name == "send" || cmd.Name == "note"
	var flags, rest []string
	rem := args[path:]
	for i := 0; i < len(rem); i++ {
		a := rem[i]
		if a == "--" || (freeText && len(rest) > 0 && !onlyTrailingFlags(rem[i:])) {
			rest = append(rest, rem[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name = name[:eq]
		}
		value, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		if !known {
			flags = append(flags, a) // urfave reports it: "flag provided but not defined"
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

// onlyTrailingFlags reports whether words are nothing but flags that may
// follow a NAME without being text: "owt send NAME --task [--json]". Any
// other word, or any other flag, makes the whole tail text.
func onlyTrailingFlags(words []string) bool {
	task := false
	for _, w := range words {
		switch w {
		case "--task":
			task = true
		case "--json":
		default:
			return false
		}
	}
	return task
}

// commandIndex is where the command name is in args: after owt's own
// flags (-L NAME, -S PATH, --help …).
func commandIndex(app *cli.App, args []string) int {
	takesValue := valueFlags(app.Flags)
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		name := strings.TrimLeft(args[i], "-")
		if takesValue[name] {
			i++ // its value ("-L=x" has none to skip)
		}
		i++
	}
	return i
}

// valueFlags names the flags of a command, true for those that take a
// value (every kind owt uses but a BoolFlag).
func valueFlags(flags []cli.Flag) map[string]bool {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	return takesValue
}
