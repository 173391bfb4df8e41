package notify

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/stretchr/testify/require"
)

// The user's command gets the notice in its environment, as before; one
// that fails at once says why.
func TestCommandGetsTheNoticeAndSaysWhyItFailed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	cfg := config.Defaults().Notify
	cfg.Command = []string{"sh", "-c", `printf '%s|%s|%s|%s|%s' "$OWT_NAME" "$OWT_STATUS" "$OWT_EVENT" "$OWT_TEXT" "$OWT_EXIT_CODE" > ` + out}
	r, ok := commandRoute(cfg, Deps{})
	require.True(t, ok)
	require.NoError(t, Deliver(context.Background(), r, Notice{Agent: "a", Status: "exited", Event: "status", Text: "owt: a exited (code 3)", ExitCode: "3", Path: dir}, time.Millisecond))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "a|exited|status|owt: a exited (code 3)|3", string(b))

	cfg.Command = []string{"sh", "-c", "echo boom >&2; exit 3"}
	r, _ = commandRoute(cfg, Deps{})
	require.ErrorContains(t, Deliver(context.Background(), r, Notice{Path: dir}, time.Millisecond), "boom")
}
