package state

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A session id is letters, digits and . _ : - only: one with terminal
// escapes, spaces or a leading '-' (from a hook payload or a tool's
// files) is never kept, printed or put on a command line.
func TestValidSessionID(t *testing.T) {
	for _, ok := range []string{"5f0c2a1e-7b7d-4c5e-9d1a-2b3c4d5e6f70", "ses_abc123", "019a:thread.1"} {
		require.True(t, ValidSessionID(ok), ok)
	}
	for _, bad := range []string{"", "-rf", "abc\x1b]2;PWNED\x07", "a b", "a\nb", "$(id)", string(make([]byte, 201))} {
		require.False(t, ValidSessionID(bad), "%q", bad)
	}
}
