package agent

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A prompt longer than one argument can hold goes on stdin to a tool that
// reads it there (exec would fail "argument list too long"); another tool
// is refused in one line.
func TestAHeadlessPromptTooLongForAnArgumentGoesOnStdin(t *testing.T) {
	big := "review this:\n" + strings.Repeat("x", 200<<10) + "\nEND"
	p := Profile{Name: "t", Headless: []string{"sh", "-c", `printf 'arg=%s\n' "$0"; wc -c`}, HeadlessStdin: true}
	out, err := p.RunHeadlessContext(context.Background(), t.TempDir(), nil, big, nil)
	require.NoError(t, err)
	require.Contains(t, out, "arg="+stdinPrompt)
	require.Contains(t, out, "\n"+strconv.Itoa(len(big))+"\n", "the whole prompt on stdin")
	short, err := p.RunHeadlessContext(context.Background(), t.TempDir(), nil, "small", nil)
	require.NoError(t, err)
	require.Contains(t, short, "arg=small", "a prompt that fits stays an argument")

	p.HeadlessStdin = false
	_, err = p.RunHeadlessContext(context.Background(), t.TempDir(), nil, big, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "reads none on stdin")
	require.NotContains(t, err.Error(), "argument list too long")
}
