package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMacOSUsesTheLinuxFoldersUnlessTheVariablesSay(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	h, ok := DirsFor("darwin", env(nil), "/Users/me")
	require.True(t, ok)
	require.Equal(t, Dirs{Config: "/Users/me/.config", State: "/Users/me/.local/state",
		Cache: "/Users/me/.cache", Data: "/Users/me/.local/share"}, h)

	h, ok = DirsFor("darwin", env(map[string]string{"XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "rel/state", "XDG_CACHE_HOME": ""}), "/Users/me")
	require.True(t, ok)
	require.Equal(t, "/cfg", h.Config, "a variable set decides")
	require.Equal(t, "/Users/me/.local/state", h.State, "a relative one is ignored, as the XDG spec says")
	require.Equal(t, "/Users/me/.cache", h.Cache, "an empty one is unset")

	for _, goos := range []string{"linux", "freebsd"} {
		_, ok = DirsFor(goos, env(nil), "/home/me")
		require.False(t, ok, "%s: adrg/xdg's own defaults", goos)
	}
	_, ok = DirsFor("darwin", env(nil), "")
	require.False(t, ok, "no home: adrg/xdg's own")
}
