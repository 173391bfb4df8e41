package cmdutil

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"
)

// flagsApp has owt's global flags and the flags of the commands
// TestInterspersedFlags reorders, as owt's own commands declare them.
func flagsApp() *cli.App {
	str := func(name string) cli.Flag { return &cli.StringFlag{Name: name} }
	boolean := func(name string, aliases ...string) cli.Flag { return &cli.BoolFlag{Name: name, Aliases: aliases} }
	app := (&Factory{IO: &IOStreams{}}).NewApp(
		&cli.Command{Name: "delete", Flags: []cli.Flag{boolean("force", "f"), boolean("keep-branch"), boolean("yes", "y")}},
		&cli.Command{Name: "new", Flags: []cli.Flag{str("name"), str("branch"), str("base"), str("tool"), boolean("json")}},
		&cli.Command{Name: "send", Flags: []cli.Flag{boolean("task"), boolean("all"), boolean("json")}},
		&cli.Command{Name: "config", Subcommands: []*cli.Command{{Name: "show"}}},
		&cli.Command{Name: "hook", SkipFlagParsing: true},
	)
	app.Flags = []cli.Flag{str("L"), str("S"), boolean("trace")}
	return app
}

func TestInterspersedFlags(t *testing.T) {
	app := flagsApp()
	cases := []struct{ in, want []string }{
		{[]string{"owt", "delete", "w1", "--force"}, []string{"owt", "delete", "--force", "--", "w1"}},
		{[]string{"owt", "new", "Fix login", "--tool", "codex", "--base", "dev"}, []string{"owt", "new", "--tool", "codex", "--base", "dev", "--", "Fix login"}},
		{[]string{"owt", "new", "--", "--help me"}, []string{"owt", "new", "--", "--help me"}},
		// Free text keeps its flag-like words.
		{[]string{"owt", "send", "a", "fix", "--all", "the", "tests"}, []string{"owt", "send", "--", "a", "fix", "--all", "the", "tests"}},
		{[]string{"owt", "send", "--all", "run", "--json"}, []string{"owt", "send", "--all", "--", "run", "--json"}},
		{[]string{"owt", "config", "show"}, []string{"owt", "config", "show"}},
		// An unknown flag after the NAME is reported as a flag, not as a second NAME.
		{[]string{"owt", "delete", "w1", "--json"}, []string{"owt", "delete", "--json", "--", "w1"}},
		// owt's own flags come before the command.
		{[]string{"owt", "-L", "other", "delete", "w1", "--force"}, []string{"owt", "-L", "other", "delete", "--force", "--", "w1"}},
		{[]string{"owt", "-S=/tmp/s", "new", "Fix", "--tool", "codex"}, []string{"owt", "-S=/tmp/s", "new", "--tool", "codex", "--", "Fix"}},
		// owt hook takes the tool's argv as it is.
		{[]string{"owt", "hook", "codex", "notify", "/bin/notify", "--from-codex", "{}"}, []string{"owt", "hook", "codex", "notify", "/bin/notify", "--from-codex", "{}"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, interspersed(app, c.in), "%v", c.in)
	}
}

func TestOneLineDropsOtherProgramsControls(t *testing.T) {
	got := OneLine("push rejected: \x1b]0;pwned\a remote says \x1b[31mno\x1b[0m\nhint: pull first")
	if strings.ContainsAny(got, "\x1b\a") {
		t.Fatalf("controls left in %q", got)
	}
	if !strings.Contains(got, "remote says") || !strings.Contains(got, "hint: pull first") {
		t.Fatalf("words lost: %q", got)
	}
}

// Flag errors name the flag as it was typed: Go's flag package writes one
// dash whatever the user wrote.
func TestFlagErrorsNameTheFlagAsTyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
		want string
	}{
		{[]string{"owt", "list", "--bogus"}, "flag provided but not defined: -bogus", "flag provided but not defined: --bogus"},
		{[]string{"owt", "list", "-bogus"}, "flag provided but not defined: -bogus", "flag provided but not defined: -bogus"},
		{[]string{"owt", "list", "--bogus=1"}, "flag provided but not defined: -bogus", "flag provided but not defined: --bogus"},
		{[]string{"owt", "new", "-x"}, "flag provided but not defined: -x", "flag provided but not defined: -x"},
		{[]string{"owt", "new", "--name"}, "flag needs an argument: -name", "flag needs an argument: --name"},
		{[]string{"owt", "wait", "a", "--timeout", "soon"}, `invalid value "soon" for flag -timeout: parse error`, `invalid value "soon" for flag --timeout: parse error`},
		{[]string{"owt", "merge"}, "merge takes one NAME", "merge takes one NAME"},
	} {
		require.Equal(t, c.want, flagAsTyped(c.msg, c.args), c.args)
	}
}
