package agent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimitOfReadsEachToolsWordsAndResetTime(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.Local)
	for _, c := range []struct {
		msg   string
		text  string
		reset time.Time
	}{
		{"⎿  You've hit your 5-hour limit · resets 3pm", "You've hit your 5-hour limit · resets 3pm", time.Date(2026, 11, 28, 15, 0, 0, 0, time.Local)},
		{"You've hit your weekly limit · resets 11:30am (Europe/Paris)", "You've hit your weekly limit · resets 11:30am (Europe/Paris)", time.Date(2026, 11, 28, 11, 30, 0, 0, paris)},
		{"You've hit your Opus limit · resets Dec 3 at 9am", "You've hit your Opus limit · resets Dec 3 at 9am", time.Date(2026, 12, 3, 9, 0, 0, 0, time.Local)},
		{"You've hit your session limit", "You've hit your session limit", time.Time{}},
		{"■ You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:15 AM.",
			"You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:15 AM.",
			time.Date(2026, 11, 29, 9, 15, 0, 0, time.Local)}, // already past today: tomorrow
		{"You've hit your usage limit. Try again at Dec 3rd, 2026 3:15 PM.", "You've hit your usage limit. Try again at Dec 3rd, 2026 3:15 PM.", time.Date(2026, 12, 3, 15, 15, 0, 0, time.Local)},
		{"Quota exceeded. Check your plan and billing details.", "Quota exceeded. Check your plan and billing details.", time.Time{}},
		{"You have exhausted your daily quota on this model.", "You have exhausted your daily quota on this model.", time.Time{}},
		{"Usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, enable usage", "Usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, enable usage", now.Add(2*time.Hour + 5*time.Minute)},
	} {
		l, ok := LimitOf(c.msg, now)
		require.True(t, ok, c.msg)
		require.Equal(t, c.text, l.Text.Line())
		require.True(t, c.reset.Equal(l.Reset), "%s: reset %v, want %v", c.msg, l.Reset, c.reset)
	}
	for _, no := range []string{"Content generator not initialized", "unexpected status 401 Unauthorized", "add rate limiting to the API", "Not logged in · Please run /login"} {
		_, ok := LimitOf(no, now)
		require.False(t, ok, no)
	}
}
