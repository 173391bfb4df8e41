package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// [notify] desktop = true, the old form, still turns the desktop on, and
// the new table does too; a repository's table sets what it names and
// keeps the rest of the user's.
func TestNotifyDesktopTakesTheOldBoolAndTheNewTable(t *testing.T) {
	root := setup(t, "[notify]\ndesktop = true\n", "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.True(t, cfg.Notify.Desktop.Enabled, "desktop = true is enabled")
	require.Nil(t, cfg.Notify.Desktop.On, "no on of its own: [notify] on")

	root = setup(t, "[notify.desktop]\nenabled = true\non = [\"waiting\"]\n", "[notify.desktop]\non = [\"exited\"]\n")
	cfg, err = Load(root)
	require.NoError(t, err)
	require.True(t, cfg.Notify.Desktop.Enabled)
	require.Equal(t, []string{"exited"}, cfg.Notify.Desktop.On)

	root = setup(t, "[notify]\ndesktop = \"yes\"\n", "")
	_, err = Load(root)
	require.ErrorContains(t, err, "notify.desktop")
}

// The channels' tables are checked: osc, format, url and each on.
func TestNotifyChannelsAreChecked(t *testing.T) {
	root := setup(t, "[notify.terminal]\nosc = \"8\"\non = [\"sleepy\"]\n[notify.webhook]\nurl = \"ftp://x\"\nformat = \"teams\"\n", "")
	_, err := Load(root)
	require.Error(t, err)
	for _, key := range []string{"notify.terminal.osc", "notify.terminal.on", "notify.webhook.url", "notify.webhook.format"} {
		require.ErrorContains(t, err, key)
	}

	root = setup(t, "[notify.terminal]\nosc = \"777\"\n[notify.webhook]\nurl = \"https://example.invalid/hook\"\nformat = \"slack\"\non = []\n", "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, "777", cfg.Notify.Terminal.OSC)
	require.Equal(t, "slack", cfg.Notify.Webhook.Format)
	require.NotNil(t, cfg.Notify.Webhook.On, "on = [] is a filter that takes nothing, not unset")
	require.Empty(t, cfg.Notify.Webhook.On)
}
