package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"
)

// A candidate with a control character is never offered: a shell would
// paste the escape or the newline onto the command line as it is.
func TestCompletionDropsWordsWithControlCharacters(t *testing.T) {
	var out bytes.Buffer
	f := &Factory{IO: &IOStreams{Out: &out}}
	app := f.NewApp(&cli.Command{Name: "switch"})
	comp := Completion{Args: func([]string, []string) Answer {
		return Words("good", "x\x1b]0;PWN\a", "a\nb", "t\tab", "del\x7f", "c1\u0085", "fine-too")
	}}
	require.Equal(t, ExitOK, f.Complete(app, comp, []string{"owt", "switch", "", CompleteFlag}))
	require.Equal(t, []string{"good", "fine-too"}, strings.Fields(out.String()))
}

// bash hands its completion function the words as typed: owt reads them
// as the shell will run them, expanding nothing.
func TestUnquoteReadsWordsAsTheShellDoes(t *testing.T) {
	for in, want := range map[string]string{
		`main`:                   `main`,
		`x\$\(touch\$\{IFS\}\)`:  `x$(touch${IFS})`,
		`'x$(to`:                 `x$(to`,
		`'a b'c`:                 `a bc`,
		`"a\$b\"c\d"`:            `a$b"c\d`,
		`"x$(y`:                  `x$(y`,
		`a\`:                     `a`,
		"line\\\ncontinued":      "linecontinued",
		`feat/'quoted'"dq"\ end`: `feat/quoteddq end`,
	} {
		require.Equal(t, want, Unquote(in), "%s", in)
	}
}
