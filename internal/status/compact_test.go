package status

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// The compact summary fits a phone's bar: a count per status, glyph and
// number together, no names.
func TestCompactSummaryIsCountsOnly(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := []*state.Record{
		rec("api", state.Working, t0), rec("ui", state.Starting, t0),
		rec("a-very-long-agent-name", state.Waiting, t0), rec("docs", state.Limited, t0),
		rec("cart", state.Idle, t0), rec("old", state.Exited, t0),
	}
	s := SummarizeWithHosts(recs, []state.HostStatus{{Host: "far", Reachable: false}})
	require.Equal(t, "▲2 ●2 ○1 ✕1 ⚠1", s.RenderCompact(StylePlain))
	require.Equal(t, "#[fg=black,bg=yellow,bold] ▲2 #[default] #[fg=black,bg=green] ●2 #[default] #[fg=black,bg=cyan] ○1 #[default] #[fg=white,bg=red] ✕1 #[default] #[fg=white,bg=red] ⚠1 #[default]", s.RenderCompact(StyleTmux), "the chips of the full summary, readable on any bar")
	require.Equal(t, map[string]string{OptStatusLine: s.Render(StyleTmux), OptStatusCompact: s.RenderCompact(StyleTmux)}, s.Options())
	require.Equal(t, "", Summarize(nil).RenderCompact(StyleTmux), "no agents: an empty bar")
}

// The bar chooses its form in tmux, per client and with no process: the
// style the user set, else compact on a client under 80 columns; full
// where there is no client.
func TestTheBarChoosesItsFormByStyleAndClientWidth(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "sock")
	tmx := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	tmx("new-session", "-d", "-x", "80", "-y", "24")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tmx("set-option", "-g", OptStatusLine, "FULL")
	tmx("set-option", "-g", OptStatusCompact, "SHORT")
	// The client's width, as an option: display-message has no client.
	bar := func(width string) string {
		if width == "" {
			tmx("set-option", "-gu", "@width")
		} else {
			tmx("set-option", "-g", "@width", width)
		}
		return tmx("display-message", "-p", strings.ReplaceAll(StatusFormat, "#{client_width}", "#{@width}"))
	}
	for _, c := range []struct{ style, width, want string }{
		{"", "50", "SHORT"}, {"", "79", "SHORT"}, {"", "80", "FULL"}, {"", "200", "FULL"},
		{"", "", "FULL"}, // no client
		{"full", "50", "FULL"}, {"compact", "200", "SHORT"}, {"auto", "50", "SHORT"}, {"auto", "120", "FULL"},
	} {
		if c.style == "" {
			tmx("set-option", "-gu", OptStatusStyle)
		} else {
			tmx("set-option", "-g", OptStatusStyle, c.style)
		}
		require.Equal(t, c.want, bar(c.width), "style %q, %s columns", c.style, c.width)
	}
	tmx("set-option", "-g", OptRestore, "⟲ 2")
	require.Equal(t, "⟲ 2 SHORT", bar("50"), "the restore mark stays in the compact form")
}
