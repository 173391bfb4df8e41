package react

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBoundEntriesCutsAtTheBoundAndPointsToTheRest(t *testing.T) {
	small := []string{"a\n", "b\n"}
	require.Equal(t, "a\nb\n", boundEntries(small, 100, "URL"), "what fits is whole, no note")

	entries := []string{strings.Repeat("x", 60) + "\n", strings.Repeat("y", 60) + "\n", "z\n", "w\n"}
	got := boundEntries(entries, 100, "https://x/pull/7")
	require.True(t, strings.HasPrefix(got, strings.Repeat("x", 60)+"\n"+strings.Repeat("y", 39)+"…\n"), got)
	require.True(t, strings.HasSuffix(got, "(cut at 0 KiB, 2 more not shown; all of it: https://x/pull/7)\n"), got)

	huge := boundEntries([]string{strings.Repeat("é", 10000) + "\n"}, messageMax, "U")
	require.Less(t, len(huge), messageMax+100)
	require.True(t, strings.HasSuffix(huge, "…\n(cut at 8 KiB; all of it: U)\n"), huge[len(huge)-40:])
}
