package agent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLiveLimitReadsGeminisDialogAndOpenCodesRetryLine(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.Local)
	gemini := "│ Usage limit reached for gemini-2.5-pro.                 │\n" +
		"│ Access resets at 3:45 PM PST.                          │\n" +
		"│ /stats model for usage details                          │\n" +
		"│ ● 1. Switch to gemini-2.5-flash                         │\n" +
		"│   2. Stop - Abort request                               │\n"
	l, ok := LiveLimit(gemini, now)
	require.True(t, ok)
	require.Equal(t, "Usage limit reached for gemini-2.5-pro.", l.Text.Line())
	require.True(t, time.Date(2026, 11, 28, 15, 45, 0, 0, time.Local).Equal(l.Reset), "%v", l.Reset)

	oc := "  ┃  Build · Big Pickle OpenCode Zen\n" +
		"   ⬝⬝⬝⬝⬝⬝⬝⬝ Too Many Requests [retrying in 12s attempt #3]      esc interrupt    • OpenCode 1.18.33\n"
	l, ok = LiveLimit(oc, now)
	require.True(t, ok)
	require.Equal(t, "Too Many Requests", l.Text.Line())
	require.Equal(t, now.Add(12*time.Second), l.Reset)

	_, ok = LiveLimit("   ⬝⬝⬝⬝ Cannot connect to API: Was there a typo in the url or port? [retrying in 1s attempt #2]\n", now)
	require.False(t, ok, "a retry that is no limit")
	_, ok = LiveLimit("> add rate limiting to the API\n", now)
	require.False(t, ok)
}
