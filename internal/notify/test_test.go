package notify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/stretchr/testify/require"
)

// owt notify test tries each configured channel once and says what
// happened to each; a channel asked for by name that is off is a
// failure; an unknown name is an error of its own.
func TestTestSaysWhatHappenedOnEachChannel(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notify-send"), []byte("#!/bin/sh\necho 'no notification server' >&2\nexit 1\n"), 0o755))
	rc := &receiver{}
	_, base := webhookFor(t, rc, "json")
	cfg := config.Defaults().Notify
	cfg.On = []string{} // the test sends whatever the filters say
	cfg.Desktop.Enabled = true
	cfg.Webhook.URL = base + "/hook"
	cfg.Command = []string{"true"}
	rs, err := Test(context.Background(), cfg, Deps{HTTP: nethttp.Client{}}, "", Sample("/repo"))
	require.NoError(t, err)
	require.Equal(t, []Result{
		{Channel: "desktop", Result: "failed", Error: rs[0].Error},
		{Channel: "command", Result: "sent"},
		{Channel: "webhook", Result: "sent"},
	}, rs)
	require.Contains(t, rs[0].Error, "no notification server")
	require.True(t, Failed(rs))
	require.Len(t, rc.bodies, 1)
	require.Contains(t, string(rc.bodies[0]), `"event":"test"`)

	rs, err = Test(context.Background(), cfg, Deps{HTTP: nethttp.Client{}}, "webhook", Sample("/repo"))
	require.NoError(t, err)
	require.Equal(t, []Result{{Channel: "webhook", Result: "sent"}}, rs)
	require.False(t, Failed(rs))

	cfg.Webhook.URL = ""
	rs, err = Test(context.Background(), cfg, Deps{}, "webhook", Sample("/repo"))
	require.NoError(t, err)
	require.Equal(t, "off", rs[0].Result)
	require.True(t, Failed(rs))

	_, err = Test(context.Background(), cfg, Deps{}, "pager", Sample("/repo"))
	require.ErrorAs(t, err, &UnknownChannelError{})
}
