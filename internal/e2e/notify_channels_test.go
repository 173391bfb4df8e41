package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One world for the notice channels: a real client attached in a pty, a
// webhook receiver on loopback, a fake notify-send on PATH. owt notify
// test reaches each channel and says so; then an agent's real change to
// waiting reaches each through the monitor: the OSC 9 sequence in the raw
// bytes the client's terminal received, the webhook's JSON, notify-send's
// argv.
func TestNoticesReachTheTerminalTheDesktopAndAWebhook(t *testing.T) {
	e, repo := statusEnv(t, "")
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		bodies = append(bodies, m)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	bodyOf := func(event string) map[string]any {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bodies {
			if b["event"] == event {
				return b
			}
		}
		return nil
	}
	bin := filepath.Join(e.Root, "notifybin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	told := filepath.Join(e.Root, "notify-send.log")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\nprintf '%s|' \"$@\" >> "+told+"\necho >> "+told+"\n"), 0o755))
	e.Set("PATH", bin+string(os.PathListSeparator)+e.Var("PATH"))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf(
		"[notify]\non = [\"waiting\"]\n[notify.terminal]\nosc = \"9\"\n[notify.desktop]\nenabled = true\n[notify.webhook]\nurl = %q\n", srv.URL+"/hook/SECRET"))

	// The agent first: its session starts the server and its monitor; the
	// client looks at the harness session, not at the agent.
	newJSON(t, e, repo, "--tool", "opencode", "--name", "o", "!sleep 2s\n!ask make test\n!sleep 30s")
	_, _, screen := e.attachRecorded("harness")

	out := e.MustOwt(repo, "notify", "test", "--json")
	var rs []map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &rs), out)
	got := map[string]string{}
	for _, r := range rs {
		got[r["channel"]] = r["result"] + r["error"]
	}
	require.Equal(t, map[string]string{"terminal": "sent", "desktop": "sent", "webhook": "sent"}, got)
	e.Eventually(5*time.Second, "the test notice on the client's terminal", func() bool {
		return strings.Contains(screen.String(), "\x1b]9;owt: this is a test notice (owt notify test)\a")
	})
	require.NotNil(t, bodyOf("test"), "owt notify test returns once the webhook answered")

	e.WaitStatus(repo, "o", "waiting", 30*time.Second)
	e.Eventually(10*time.Second, "the OSC 9 notice on the client's terminal", func() bool {
		return strings.Contains(screen.String(), "\x1b]9;owt: o needs you")
	})
	e.Eventually(10*time.Second, "the webhook's notice", func() bool { return bodyOf("status") != nil })
	b := bodyOf("status")
	require.Equal(t, "o", b["agent"])
	require.Equal(t, "waiting", b["status"])
	require.Equal(t, repo, b["repo"])
	require.Contains(t, b["text"], "owt: o needs you")
	e.Eventually(10*time.Second, "notify-send ran for the agent", func() bool {
		l, _ := os.ReadFile(told)
		return strings.Contains(string(l), "|owt|owt: o needs you")
	})
	log, _ := os.ReadFile(filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "owt.log"))
	require.NotContains(t, string(log), "SECRET", "the webhook's path is in no log line")
}
