package forge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOneLineKeepsGhsFirstLineShortAndInert(t *testing.T) {
	require.Equal(t, "HTTP 502", oneLine("\n  HTTP 502\n", 200))
	require.Equal(t, "GraphQL: no commits …", oneLine("GraphQL: no commits\nmore detail\n", 200))
	require.Equal(t, "]0;x title", oneLine("\x1b]0;x\x07 title", 200))
	long := oneLine(strings.Repeat("é", 300), 201)
	require.Equal(t, strings.Repeat("é", 100)+" …", long, "cut at a rune")
	require.Equal(t, "", oneLine("\n \n", 200))
}
