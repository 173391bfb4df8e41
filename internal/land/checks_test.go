package land

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunChecksInStopsAtTheFirstFailureWithItsTail(t *testing.T) {
	dir := t.TempDir()
	res := RunChecks(dir, [][]string{{"true"}}, time.Minute)
	require.True(t, res.Passed)

	script := `for i in $(seq 1 100); do echo "line $i"; done; printf '\033[31mred\033[0m\a\n'; exit 3`
	res = RunChecks(dir, [][]string{{"true"}, {"sh", "-c", script}, {"false"}}, time.Minute)
	require.False(t, res.Passed)
	lines := strings.Split(res.Output, "\n")
	require.Equal(t, "$ sh -c '"+strings.ReplaceAll(script, "'", `'\''`)+"'", lines[0], "the command, as argv")
	require.Equal(t, "exit code 3", lines[1])
	require.Len(t, lines, 2+checkTail)
	require.Equal(t, "line 62", lines[2], "only the last lines")
	require.Equal(t, "red", lines[len(lines)-1], "no escape sequences or control characters")

	res = RunChecks(dir, [][]string{{"sleep", "30"}}, 200*time.Millisecond)
	require.False(t, res.Passed)
	require.Contains(t, res.Output, "timed out after 200ms")

	res = RunChecks(dir, [][]string{{"no-such-program-owt"}}, time.Minute)
	require.False(t, res.Passed)
	require.Contains(t, res.Output, "could not run")
}

// A check that prints one huge line, or megabytes, gives the agent a
// bounded tail, and owt keeps only the last bytes of it in memory.
func TestTailIsBoundedInBytes(t *testing.T) {
	huge := strings.Repeat("x", 3_000_000)
	tail := Tail([]byte("first\n"+huge), 40)
	require.LessOrEqual(t, len(tail), tailMax+len("…"))
	require.True(t, strings.HasPrefix(tail, "first\n…") || strings.HasPrefix(tail, "…"), tail[:20])

	lb := &lastBytes{max: 10}
	_, _ = lb.Write([]byte("0123456789abcdef"))
	_, _ = lb.Write([]byte("XY"))
	require.Equal(t, "89abcdefXY", string(lb.Bytes()))
}
