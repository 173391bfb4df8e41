package config

// Where owt keeps its files: the XDG base folders (config, state, cache,
// data). On macOS they are ~/.config, ~/.local/state, ~/.cache and
// ~/.local/share, as on Linux, not the ~/Library folders
// github.com/adrg/xdg gives there: a tmux user looks for owt's config
// beside tmux's, in ~/.config. The XDG_* variables still decide when they
// are set, as gh does it.

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/adrg/xdg"
)

// Dirs are the base folders owt uses.
type Dirs struct{ Config, State, Cache, Data string }

// For is where the base folders are on goos, for a user whose home is
// home, with the environment getenv: on darwin each XDG_* variable that
// holds an absolute path, else the Linux default under home. ok is false
// on every other system, whose defaults github.com/adrg/xdg already
// gets right.
func DirsFor(goos string, getenv func(string) string, home string) (h Dirs, ok bool) {
	if goos != "darwin" || home == "" {
		return Dirs{}, false
	}
	pick := func(name, def string) string {
		// The XDG spec: a relative path in one of these is invalid
		// and to be ignored.
		if v := getenv(name); v != "" && filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(home, def)
	}
	return Dirs{
		Config: pick("XDG_CONFIG_HOME", ".config"),
		State:  pick("XDG_STATE_HOME", filepath.Join(".local", "state")),
		Cache:  pick("XDG_CACHE_HOME", ".cache"),
		Data:   pick("XDG_DATA_HOME", filepath.Join(".local", "share")),
	}, true
}

// LoadDirs reads the environment again (xdg.Reload) and, on macOS, puts the
// base folders where DirsFor says. Every program of owt calls it first in
// main; a test that changes the XDG_* variables calls it (or
// xdg.Reload, on Linux the same).
func LoadDirs() {
	xdg.Reload()
	home, _ := os.UserHomeDir()
	if h, ok := DirsFor(runtime.GOOS, os.Getenv, home); ok {
		xdg.ConfigHome, xdg.StateHome, xdg.CacheHome, xdg.DataHome = h.Config, h.State, h.Cache, h.Data
	}
}
