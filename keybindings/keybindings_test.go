package keybindings

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
		want = append(want, confLine(append([]string{"bind-key", "-T", b.Table, b.Key}, b.Command...)))
	}
	var got []string
	for _, l := range strings.Split(Conf(), "\n") {
		if strings.HasPrefix(l, "bind-key ") {
			got = append(got, l)
		}
	}
	require.Equal(t, want, got)
}

// confLine writes a command the way owt.conf does: words with blanks or
// '#' in double quotes.
func confLine(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if strings.ContainsAny(w, " #'\"$\\") {
			w = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(w) + `"`
		}
		out[i] = w
	}
	return strings.Join(out, " ")
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
	require.Equal(t, []string{"display-popup", "-E", "-w", "80%", "-h", "80%", "-d", "#{pane_current_path}",
		`'/opt/my tools/it'\''s/owt' popup switch`}, bs[0].Command)

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
