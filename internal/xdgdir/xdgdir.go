// Package xdgdir is where the XDG base directory specification puts a
// user's files, read from the environment on every call: owt's state,
// config, cache, data and runtime directories.
//
// It follows what github.com/adrg/xdg did for owt on Unix, which it
// replaces: a variable that is set and, after "~" or "$HOME" at its start
// is expanded, absolute wins; else the spec's default under $HOME ("/"
// when HOME is unset). It has no package state and no init, so an owt
// process pays nothing for it until it asks (a hook asks once), and a
// test that sets the environment needs no reload.
//
// Imports the standard library only.
package xdgdir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Home is $HOME, or "/" when it is unset or empty.
func Home() string {
	if home := os.Getenv("HOME"); home != "" {
		return home
	}
	return "/"
}

// StateHome is $XDG_STATE_HOME, else ~/.local/state.
func StateHome() string { return dir("XDG_STATE_HOME", ".local", "state") }

// ConfigHome is $XDG_CONFIG_HOME, else ~/.config.
func ConfigHome() string { return dir("XDG_CONFIG_HOME", ".config") }

// CacheHome is $XDG_CACHE_HOME, else ~/.cache.
func CacheHome() string { return dir("XDG_CACHE_HOME", ".cache") }

// DataHome is $XDG_DATA_HOME, else ~/.local/share.
func DataHome() string { return dir("XDG_DATA_HOME", ".local", "share") }

// RuntimeDir is $XDG_RUNTIME_DIR, else /run/user/UID.
func RuntimeDir() string {
	if d := fromEnv("XDG_RUNTIME_DIR"); d != "" {
		return d
	}
	return filepath.Join("/run/user", strconv.Itoa(os.Getuid()))
}

// dir is the variable env's directory, else Home joined with def.
func dir(env string, def ...string) string {
	if d := fromEnv(env); d != "" {
		return d
	}
	return filepath.Join(append([]string{Home()}, def...)...)
}

// fromEnv is the variable env as a directory: "" when it is unset or,
// once expanded, not absolute (the spec says to ignore a relative one).
func fromEnv(env string) string {
	d := expandHome(os.Getenv(env))
	if d == "" || !filepath.IsAbs(d) {
		return ""
	}
	return d
}

// expandHome expands "~" or "$HOME" at the start of path.
func expandHome(path string) string {
	switch {
	case path == "":
		return ""
	case path[0] == '~':
		return filepath.Join(Home(), path[1:])
	case strings.HasPrefix(path, "$HOME"):
		return filepath.Join(Home(), path[len("$HOME"):])
	}
	return path
}
