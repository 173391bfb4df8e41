package xdgdir

import (
	"os"
	"strconv"
	"testing"
)

func TestDirectoriesFollowTheEnvironment(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"} {
		t.Setenv(v, "")
	}
	uid := strconv.Itoa(os.Getuid())
	defaults := map[string]string{
		StateHome(): "/home/ann/.local/state", ConfigHome(): "/home/ann/.config", CacheHome(): "/home/ann/.cache",
		DataHome(): "/home/ann/.local/share", RuntimeDir(): "/run/user/" + uid,
	}
	for got, want := range defaults {
		if got != want {
			t.Errorf("default %q, want %q", got, want)
		}
	}
	cases := []struct{ value, want string }{
		{"/srv/state", "/srv/state"},
		{"~/st", "/home/ann/st"},
		{"$HOME/st", "/home/ann/st"},
		{"relative/st", "/home/ann/.local/state"}, // the spec: a relative path is ignored
		{"/a/../b/", "/a/../b/"},                  // kept as the user wrote it
	}
	for _, c := range cases {
		t.Setenv("XDG_STATE_HOME", c.value)
		if got := StateHome(); got != c.want {
			t.Errorf("XDG_STATE_HOME=%q: StateHome %q, want %q", c.value, got, c.want)
		}
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	if got := StateHome(); got != "/.local/state" {
		t.Errorf("no HOME: StateHome %q, want /.local/state", got)
	}
}
