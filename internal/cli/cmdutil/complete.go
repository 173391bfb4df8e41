package cmdutil

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"
)

// CompleteFlag ends the command line a shell's completion script runs:
// "owt WORDS… CURRENT --generate-bash-completion", CURRENT being the word
// under the cursor as typed so far (maybe ""). The name is urfave's.
const CompleteFlag = "--generate-bash-completion"

// DescribeEnv, set by the zsh and fish scripts, asks for each completion
// with what it is after a tab ("codex\tinstalled"); bash takes words only.
const DescribeEnv = "OWT_COMPLETE_DESCRIBE"

// TypedEnv, set by the bash script, says the words come as typed on the
// command line (bash hands a function its words with their quotes and
// backslashes): owt reads them as the shell will (Unquote). zsh dequotes
// them itself, and fish's -o words are already plain.
const TypedEnv = "OWT_COMPLETE_TYPED"

// Completing reports whether args (owt's argv) ask for completions.
func Completing(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == CompleteFlag
}

// Candidate is one completion and a few words on what it is.
type Candidate struct{ Word, About string }

// Answer is what completes a word: candidates, or Files (the shell's own
// completion of paths).
type Answer struct {
	Words []Candidate
	Files bool
}

// Words is an answer of plain words.
func Words(words ...string) Answer {
	var a Answer
	for _, w := range words {
		a.Words = append(a.Words, Candidate{Word: w})
	}
	return a
}

// Without is a without the words given (an agent named twice).
func (a Answer) Without(given []string) Answer {
	out := Answer{Files: a.Files}
	for _, c := range a.Words {
		if !slices.Contains(given, c.Word) {
			out.Words = append(out.Words, c)
		}
	}
	return out
}

// Completion is what a command table knows about its values: the rest
// (commands, subcommands, flags) Complete reads off the commands.
type Completion struct {
	// FlagValues completes the value of the flag called name (as
	// declared) of the command at path (its words after owt; none: owt's
	// own flags); args are the command's arguments typed so far.
	FlagValues func(path []string, name string, args []string) Answer
	// Args completes the command's next argument after args.
	Args func(path []string, args []string) Answer
}

const completionKey = "owt.completion"

// SetCompletion makes Execute answer a shell's completion request on app
// with comp, instead of urfave's answer (which knows no values, offers a
// "help" argument and reads os.Args).
func SetCompletion(app *cli.App, comp Completion) {
	if app.Metadata == nil {
		app.Metadata = map[string]interface{}{}
	}
	app.Metadata[completionKey] = comp
}

// Complete writes, one a line on f.IO.Out, the completions of the last
// word of args, owt's argv ending in CompleteFlag. A first line ":files"
// asks the shell to complete a path. It never fails: a value that cannot
// be read is not offered.
func (f *Factory) Complete(app *cli.App, comp Completion, args []string) int {
	words := args[1 : len(args)-1]
	if os.Getenv(TypedEnv) != "" {
		plain := make([]string, len(words))
		for i, w := range words {
			plain[i] = Unquote(w)
		}
		words = plain
	}
	cur := ""
	if len(words) > 0 {
		cur, words = words[len(words)-1], words[:len(words)-1]
	}
	prefix, ans := completeWords(app, comp, words, cur)
	if ans.Files {
		fmt.Fprintln(f.IO.Out, ":files")
		return ExitOK
	}
	describe := os.Getenv(DescribeEnv) != ""
	seen := map[string]bool{}
	for _, c := range ans.Words {
		word := prefix + c.Word
		// A word with a control character is never offered: no name
		// owt gives holds one, and a shell would paste it as it is.
		if !strings.HasPrefix(word, cur) || seen[word] || strings.IndexFunc(word, unicode.IsControl) >= 0 {
			continue
		}
		seen[word] = true
		if about := strings.TrimSpace(Shown(c.About)); describe && about != "" {
			fmt.Fprintf(f.IO.Out, "%s\t%s\n", word, about)
		} else {
			fmt.Fprintln(f.IO.Out, word)
		}
	}
	return ExitOK
}

// completeWords finds the command words names, then what completes cur
// there: a flag's value, a flag, a subcommand or an argument. prefix goes
// before each answer ("--tool=" when cur is "--tool=co").
func completeWords(app *cli.App, comp Completion, words []string, cur string) (prefix string, ans Answer) {
	var cmd *cli.Command
	var path, args []string
	flags := app.Flags
	if !app.HideVersion && cli.VersionFlag != nil {
		flags = append(append([]cli.Flag{}, flags...), cli.VersionFlag)
	}
	subs := app.Commands
	given := map[string]bool{}
	rest := false // after "--": arguments only
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case rest || w == "-" || !strings.HasPrefix(w, "-"):
			if w == "=" && !rest {
				continue // bash splits --tool=codex into --tool, =, codex
			}
			if !rest && len(args) == 0 {
				if sub := findCommand(subs, w); sub != nil {
					cmd, subs, flags = sub, sub.Subcommands, sub.Flags
					path = append(path, sub.Name)
					given = map[string]bool{}
					if cmd.SkipFlagParsing {
						return "", Answer{} // owt hook, mcp, memory: another program's argv
					}
					continue
				}
			}
			args = append(args, w)
		case w == "--":
			rest = true
		default:
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			fl := findFlag(flags, name)
			if fl == nil {
				continue
			}
			for _, n := range fl.Names() {
				given[n] = true
			}
			if !hasValue && takesValue(fl) && i+1 < len(words) {
				i++
				if words[i] == "=" && i+1 < len(words) {
					i++
				}
			}
		}
	}
	valuesOf := func(fl cli.Flag) Answer {
		if comp.FlagValues == nil {
			return Answer{}
		}
		return comp.FlagValues(path, fl.Names()[0], args)
	}
	// The value of a flag: "--tool co", "--tool=co", bash's "--tool = co".
	if !rest {
		prev := ""
		if n := len(words); n > 0 {
			prev = words[n-1]
			if prev == "=" && n > 1 {
				prev = words[n-2]
			}
		}
		if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
			if fl := findFlag(flags, strings.TrimLeft(prev, "-")); fl != nil && takesValue(fl) {
				return "", valuesOf(fl)
			}
		}
		if strings.HasPrefix(cur, "-") {
			if name, _, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
				if fl := findFlag(flags, name); fl != nil && takesValue(fl) {
					return cur[:strings.Index(cur, "=")+1], valuesOf(fl)
				}
				return "", Answer{}
			}
			return "", flagCandidates(flags, given, cur)
		}
	}
	if !rest && len(args) == 0 && len(subs) > 0 {
		var a Answer
		for _, c := range subs {
			if !c.Hidden {
				a.Words = append(a.Words, Candidate{Word: c.Name, About: c.Usage})
			}
		}
		return "", a
	}
	if comp.Args == nil || cmd == nil {
		return "", Answer{}
	}
	return "", comp.Args(path, args)
}

// flagCandidates are the flags of a command not given yet: long ones as
// --name; short ones as -n too when cur is "-" or "".
func flagCandidates(flags []cli.Flag, given map[string]bool, cur string) Answer {
	var a Answer
	for _, fl := range append(append([]cli.Flag{}, flags...), cli.HelpFlag) {
		if fl == nil {
			continue
		}
		if vf, ok := fl.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		if given[fl.Names()[0]] {
			continue
		}
		about := ""
		if df, ok := fl.(cli.DocGenerationFlag); ok {
			about = strings.ReplaceAll(df.GetUsage(), "`", "")
		}
		for _, n := range fl.Names() {
			switch {
			case len(n) > 1:
				a.Words = append(a.Words, Candidate{Word: "--" + n, About: about})
			case !strings.HasPrefix(cur, "--"):
				a.Words = append(a.Words, Candidate{Word: "-" + n, About: about})
			}
		}
	}
	return a
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, fl := range flags {
		for _, n := range fl.Names() {
			if n == name {
				return fl
			}
		}
	}
	if cli.HelpFlag != nil {
		for _, n := range cli.HelpFlag.Names() {
			if n == name {
				return cli.HelpFlag
			}
		}
	}
	return nil
}

func takesValue(fl cli.Flag) bool {
	_, isBool := fl.(*cli.BoolFlag)
	return !isBool
}

// Unquote reads word as a POSIX shell would, without expanding anything:
// backslashes escape outside quotes, '…' is literal, and in "…" a
// backslash escapes only $, `, ", \ and a newline. An unclosed quote (a
// word still being typed) runs to the end.
func Unquote(word string) string {
	var b strings.Builder
	for i := 0; i < len(word); i++ {
		switch c := word[i]; c {
		case '\\':
			if i+1 < len(word) {
				i++
				if word[i] != '\n' {
					b.WriteByte(word[i])
				}
			}
		case '\'':
			j := strings.IndexByte(word[i+1:], '\'')
			if j < 0 {
				b.WriteString(word[i+1:])
				return b.String()
			}
			b.WriteString(word[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; i < len(word) && word[i] != '"'; i++ {
				if word[i] == '\\' && i+1 < len(word) && strings.IndexByte("$`\"\\\n", word[i+1]) >= 0 {
					i++
					if word[i] == '\n' {
						continue
					}
				}
				b.WriteByte(word[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
