package keybindings

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/tmux"
)

func TestTableHasTheFourKeys(t *testing.T) {
	got := map[string]Key{}
	for _, k := range Table() {
		got[k.Action] = k
	}
	require.Equal(t, Key{Action: "switch", Option: "@owt-key-switch", Default: "M-s", Runs: []string{"popup", "switch"}}, got["switch"])
	require.Equal(t, Key{Action: "create", Option: "@owt-key-create", Default: "M-c", Runs: []string{"popup", "create"}}, got["create"])
	require.Equal(t, Key{Action: "merge", Option: "@owt-key-merge", Default: "M-m", Runs: []string{"popup", "merge"}}, got["merge"])
	require.Equal(t, Key{Action: "delete", Option: "@owt-key-delete", Default: "M-d", Runs: []string{"popup", "delete"}}, got["delete"])
	require.Equal(t, Key{Action: "control", Option: "@owt-key-control", Default: "M-o", Runs: []string{"popup", "control"}}, got["control"])
	require.Equal(t, Key{Action: "restore", Option: "@owt-key-restore", Default: "M-r", Runs: []string{"restore", "--all", "--popup"}}, got["restore"])
	require.Len(t, got, 6)
}

func TestParseTableRejectsMalformedLines(t *testing.T) {
	_, err := parseTable("#: switch M-s owt popup switch\n")
	require.ErrorContains(t, err, "line 1")
	_, err = parseTable("# nothing here\n")
	require.Error(t, err)
}

// The bind-key lines of owt.conf, for people who source the file, are what
// owt tmux init binds with the default options and owt on PATH.
func TestConfBindLinesMatchTheTable(t *testing.T) {
	s, err := ParseSettings(nil)
	require.NoError(t, err)
	var want []string
	for _, b := range Bindings(s, "owt", true) {
		want = append(want, tmux.CommandLine(append([]string{"bind-key", "-T", b.Table, b.Key}, b.Command...)))
	}
	var got []string
	for _, l := range strings.Split(Conf(), "\n") {
		if strings.HasPrefix(l, "bind-key ") {
			got = append(got, l)
		}
	}
	require.Equal(t, want, got)
}

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings(map[string]string{})
	require.NoError(t, err)
	require.Equal(t, "root", s.Table)
	require.Equal(t, "80%", s.Width)
	require.Equal(t, "80%", s.Height)
	require.Equal(t, map[string]string{"switch": "M-s", "create": "M-c", "merge": "M-m", "delete": "M-d", "control": "M-o", "restore": "M-r"}, s.Keys)

	s, err = ParseSettings(map[string]string{
		"@owt-key-switch": "C-f", "@owt-key-create": "none", "@owt-key-merge": "NONE",
		"@owt-key-table": "prefix", "@owt-popup-width": "120", "@owt-popup-height": "90%",
	})
	require.NoError(t, err)
	require.Equal(t, "prefix", s.Table)
	require.Equal(t, "120", s.Width)
	require.Equal(t, "90%", s.Height)
	require.Equal(t, map[string]string{"switch": "C-f", "create": "", "merge": "", "delete": "M-d", "control": "M-o", "restore": "M-r"}, s.Keys)

	_, err = ParseSettings(map[string]string{"@owt-key-table": "copy-mode", "@owt-popup-width": "wide", "@owt-key-delete": "M-d M-x"})
	require.ErrorContains(t, err, `@owt-key-table is "copy-mode": use root or prefix`)
	require.ErrorContains(t, err, `@owt-popup-width is "wide"`)
	require.ErrorContains(t, err, `@owt-key-delete is "M-d M-x"`)
}

func TestBindingsRunOwtInAPopupOrAWindow(t *testing.T) {
	s, _ := ParseSettings(map[string]string{"@owt-key-create": "none"})
	bs := Bindings(s, "/opt/my tools/it's/owt", true)
	require.Len(t, bs, 5)
	require.Equal(t, "switch", bs[0].Action)
	require.Equal(t, []string{"if-shell", "-F", Narrow("80%", "80%"),
		`display-popup -E -w 100% -h 100% -d "#{pane_current_path}" "'/opt/my tools/it'\\''s/owt' popup switch"`,
		`display-popup -E -w 80% -h 80% -d "#{pane_current_path}" "'/opt/my tools/it'\\''s/owt' popup switch"`}, bs[0].Command)

	old := Bindings(s, "/usr/bin/owt", false)
	require.Equal(t, []string{"new-window", "-n", "owt", "-c", "#{pane_current_path}", "/usr/bin/owt popup switch"}, old[0].Command)
}

func TestCommandsMoveFromPreviousBindingsIdempotently(t *testing.T) {
	s, _ := ParseSettings(nil)
	bs := Bindings(s, "owt", true)
	first := Commands(nil, bs)
	require.Len(t, first, 7, "six binds and the record")
	require.Equal(t, []string{"set-option", "-gq", OptBound, "root:M-s root:M-c root:M-m root:M-d root:M-o root:M-r"}, first[6])

	again := Commands(DecodeBound(EncodeBound(bs)), bs)
	require.Equal(t, first, again, "nothing to unbind the second time")

	s2, _ := ParseSettings(map[string]string{"@owt-key-switch": "M-w", "@owt-key-create": "none"})
	moved := Commands(DecodeBound(EncodeBound(bs)), Bindings(s2, "owt", true))
	require.Equal(t, []string{"unbind-key", "-T", "root", "M-s"}, moved[0])
	require.Equal(t, []string{"unbind-key", "-T", "root", "M-c"}, moved[1])
	require.Equal(t, "bind-key", moved[2][0])
}

func TestDecodeBoundKeepsKeysWithColons(t *testing.T) {
	require.Equal(t, []Bound{{"root", "M-:"}, {"prefix", "C-s"}}, DecodeBound("root:M-: prefix:C-s bogus"))
}

// TestEveryKeyHasWords fails on a key of owt.conf's table with no words
// in keyDocs, which the generated tmux-options reference would show
// blank, and on words for an action the table no longer has.
func TestEveryKeyHasWords(t *testing.T) {
	actions := map[string]bool{}
	for _, k := range Table() {
		actions[k.Action] = true
		if keyDocs[k.Action] == "" {
			t.Errorf("key %s (%s) has no words in keyDocs (options.go)", k.Action, k.Option)
		}
	}
	for a := range keyDocs {
		if !actions[a] {
			t.Errorf("keyDocs has %q, which owt.conf's table does not", a)
		}
	}
	for _, o := range append(Options(), Published()...) {
		if o.Doc == "" {
			t.Errorf("option %s has no words", o.Name)
		}
	}
}

// The popup takes the whole client where the configured size would be
// smaller than the screens are drawn for (80% of a phone's 50 columns is
// 40) or would not fit (tmux refuses a popup wider than the client), as
// tmux itself works it out from the client's size.
func TestNarrowClientsGetAPopupOfTheWholeClient(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "sock")
	out, err := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24").CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	narrow := func(width, height string, cols, lines int) bool {
		f := strings.NewReplacer("#{client_width}", strconv.Itoa(cols), "#{client_height}", strconv.Itoa(lines)).Replace(Narrow(width, height))
		out, err := exec.Command("tmux", "-S", sock, "display-message", "-p", f).CombinedOutput()
		require.NoError(t, err, string(out))
		v := strings.TrimSpace(string(out))
		require.Contains(t, []string{"0", "1"}, v, f)
		return v == "1"
	}
	for _, c := range []struct {
		width, height string
		cols, lines   int
		want          bool
	}{
		{"80%", "80%", 50, 25, true},   // a phone: 40 columns
		{"80%", "80%", 74, 40, true},   // 59 columns
		{"80%", "80%", 75, 40, false},  // 60 columns
		{"80%", "80%", 120, 24, true},  // 19 lines
		{"80%", "80%", 120, 25, false}, // 20 lines
		{"80%", "80%", 200, 60, false}, // a desktop
		{"120", "30", 100, 40, true},   // wider than the client: tmux would refuse it
		{"120", "30", 160, 40, false},  // fits
		{"120", "30", 160, 29, true},   // higher than the client
		{"40", "15", 50, 25, false},    // small on purpose, and it fits
		{"100%", "100%", 50, 25, true}, // the whole client either way
		{"100%", "100%", 120, 40, false},
	} {
		require.Equal(t, c.want, narrow(c.width, c.height, c.cols, c.lines), "%s x %s on %dx%d", c.width, c.height, c.cols, c.lines)
	}
}
