package usage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A window of Claude's statusline JSON with a field owt does not read as
// it expects costs that window only: a reset time given as a date is read,
// a used share that is no number drops its own window, and the other
// window stays. Before, either made the whole JSON an error and both
// windows were lost.
func TestClaudeStatusLineWindowsAreReadOneByOne(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	ls, err := ParseClaudeStatusLine([]byte(`{"rate_limits":{
		"five_hour":{"used_percentage":50,"resets_at":"2026-11-29T18:00:00Z"},
		"seven_day":{"used_percentage":"lots","resets_at":1796000000}}}`), now)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.Equal(t, Window5h, ls[0].Window)
	require.Equal(t, 50.0, ls[0].UsedPercent)
	require.Equal(t, time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC), ls[0].ResetsAt)

	ls, err = ParseClaudeStatusLine([]byte(`{"rate_limits":{
		"five_hour":{"used_percentage":10,"resets_at":{"at":1}},
		"seven_day":{"used_percentage":20,"resets_at":1796000000}}}`), now)
	require.NoError(t, err)
	require.Len(t, ls, 2)
	require.True(t, ls[0].ResetsAt.IsZero(), "a reset time of no known shape is none")
	require.Equal(t, time.Unix(1796000000, 0).UTC(), ls[1].ResetsAt)
}
