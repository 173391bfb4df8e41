package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// make demo's world, as scripts/demo.sh builds it before it attaches
// (--world), shows what it says it shows and reaches a merged commit on
// main through Alt+m pressed on a real client: its agents work on their
// own (checkout commits, login asks for permission, cart keeps working),
// its help is on the first screen, and its own git identity makes the
// commits, with none in the environment (on a host whose name has no
// domain git cannot make one up).
func TestDemoWorldMergesThroughAltM(t *testing.T) {
	e := newQuietEnv(t)
	// The demo starts the world's tmux server itself, with its own config.
	e.Tmux("kill-server")
	var env []string
	for _, kv := range e.Environ("OWT_DEMO_BIN="+e.Bins.Dir, "OWT_DEMO_AGENT="+e.Bins.FakeAgent) {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_AUTHOR_") || strings.HasPrefix(k, "GIT_COMMITTER_") || k == "OWT_TEMPLATE" {
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(filepath.Join(fixture.ModuleRoot(), "scripts", "demo.sh"), "--world", e.Root)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "kill-server", "it says how to end it")
	shop := filepath.Join(e.Root, "shop")

	status := func(name string) string {
		for _, it := range e.List(shop) {
			if it.Name == name {
				return it.Status
			}
		}
		return ""
	}
	e.Eventually(30*time.Second, "checkout idle with its commit", func() bool {
		c := e.FindFresh(shop, "checkout")
		return c.Status == "idle" && c.Ahead == 1 && c.Dirty == 0
	})
	e.Eventually(30*time.Second, "login waiting, cart working", func() bool {
		return status("login") == "waiting" && status("cart") == "working"
	})
	bar, _ := e.TryTmux("show-options", "-gqv", "@owt-status-line")
	require.Contains(t, bar, "▲ login")
	require.Contains(t, e.MustOwt(shop, "why", "login"), "waiting for permission")
	require.Equal(t, "40", e.Tmux("show-options", "-gv", "status-left-length"))

	client, tty, screen := e.attachRecorded("demo")
	e.waitDrawn(screen, "Alt+o  control popup") // the help is the first screen
	checkout := e.Find(shop, "checkout")
	e.Tmux("switch-client", "-c", client, "-t", checkout.Session)
	screen.Reset()
	_, _ = tty.Write([]byte("\x1bm")) // Alt+m in checkout's session
	e.waitDrawn(screen, "Merge feat/checkout into main?")
	_, _ = tty.Write([]byte("y"))
	e.waitNoProcess(" merge")

	require.Equal(t, "Add a checkout page with a cart summary", e.Git(shop, "log", "-1", "--format=%s", "main"))
	require.Equal(t, "owt demo <demo@owt.invalid>", e.Git(shop, "log", "-1", "--format=%an <%ae>", "main"))
	require.Contains(t, e.Git(shop, "show", "main:checkout.html"), "cart-summary")
	e.Eventually(10*time.Second, "checkout gone", func() bool { return status("checkout") == "" })
}
