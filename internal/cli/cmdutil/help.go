package cmdutil

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Walk calls fn on every command of cmds and of their subcommands, parents
// first, in the order help lists them; path is the command's words after
// "owt" ("run", "status"). It is how the help tests, shell completion and
// a generated CLI reference read the command tree.
func Walk(cmds []*cli.Command, fn func(path []string, c *cli.Command)) {
	walk(nil, cmds, fn)
}

func walk(parent []string, cmds []*cli.Command, fn func([]string, *cli.Command)) {
	for _, c := range cmds {
		path := append(append([]string{}, parent...), c.Name)
		fn(path, c)
		walk(path, c.Subcommands, fn)
	}
}

// SetExamples shows, at the end of the help of each command of cmds (or
// of their subcommands) that examples has by its words ("run status"),
// those examples under EXAMPLES.
func SetExamples(cmds []*cli.Command, examples map[string][]string) {
	Walk(cmds, func(path []string, c *cli.Command) {
		ex := examples[strings.Join(path, " ")]
		if len(ex) == 0 {
			return
		}
		base := cli.CommandHelpTemplate
		if len(c.Subcommands) > 0 {
			base = cli.SubcommandHelpTemplate
		}
		// Its heading in owt --help says its category: no news here.
		base = strings.Replace(base, "{{if .Category}}\n\nCATEGORY:\n   {{.Category}}{{end}}", "", 1)
		// The examples go in as one quoted string: a brace in them is
		// not template syntax.
		c.CustomHelpTemplate = base + "\nEXAMPLES:\n{{" + strconv.Quote("   "+strings.Join(ex, "\n   ")) + "}}\n"
	})
}

// quietHelp drops what urfave adds to every command's help that says
// nothing: "(default: false)" after each switch that is off unless given,
// and a "help, h" subcommand under every command (which shell completion
// then offered as if it were an argument: "owt run status help").
// "--help" stays on every command.
func quietHelp(flags []cli.Flag, cmds []*cli.Command) {
	quietFlags(flags)
	Walk(cmds, func(_ []string, c *cli.Command) {
		c.HideHelpCommand = true
		quietFlags(c.Flags)
	})
}

func quietFlags(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok && !b.Value && b.DefaultText == "" {
			b.DisableDefaultText = true
		}
	}
}

// didYouMean is " (did you mean X?)" naming the one of names closest to
// typed, or "" when none is close: at most one edit (a letter wrong,
// missing, extra, or two swapped) for a short word, two for a longer
// one, or typed being the start of exactly one name.
func didYouMean(typed string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(typed, n)
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	limit := 1
	if len(typed) > 5 {
		limit = 2
	}
	if bestD >= 0 && bestD <= limit {
		return best
	}
	var starts []string
	for _, n := range names {
		if len(typed) >= 2 && strings.HasPrefix(n, typed) {
			starts = append(starts, n)
		}
	}
	if len(starts) == 1 {
		return starts[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of two neighbours.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// commandSuggestion is "; did you mean 'owt X'?" for a mistyped command
// name among cmds (the visible ones), or "".
func commandSuggestion(where, typed string, cmds []*cli.Command) string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	if s := didYouMean(typed, names); s != "" {
		return "; did you mean '" + where + " " + s + "'?"
	}
	return ""
}

// flagSuggestion adds "; did you mean --X?" to urfave's error for a flag
// the command does not have, naming the closest of its visible flags.
func flagSuggestion(msg string, flags []cli.Flag) string {
	const notDefined = "flag provided but not defined: -"
	i := strings.Index(msg, notDefined)
	if i < 0 {
		return msg
	}
	typed := strings.TrimLeft(msg[i+len(notDefined):], "-")
	var names []string
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	names = append(names, "help")
	if s := didYouMean(typed, names); s != "" {
		return msg + "; did you mean --" + s + "?"
	}
	return msg
}
