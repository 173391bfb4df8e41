package setupcmd

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for v, want := range map[string][2]int{"3.3a": {3, 3}, "3.2": {3, 2}, "next-3.5": {3, 5}, "3.10": {3, 10}} {
		major, minor, ok := parseVersion(v)
		require.True(t, ok, v)
		require.Equal(t, want, [2]int{major, minor}, v)
	}
	for _, v := range []string{"", "master", "3"} {
		_, _, ok := parseVersion(v)
		require.False(t, ok, v)
	}
}
