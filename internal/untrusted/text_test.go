package untrusted

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShortLineKeepsTheFirstLineShortAndInert(t *testing.T) {
	require.Equal(t, "HTTP 502", ShortLine("\n  HTTP 502\n", 200))
	require.Equal(t, "GraphQL: no commits …", ShortLine("GraphQL: no commits\nmore detail\n", 200))
	require.Equal(t, "]0;x title", ShortLine("\x1b]0;x\x07 title", 200))
	long := ShortLine(strings.Repeat("é", 300), 201)
	require.Equal(t, strings.Repeat("é", 100)+" …", long, "cut at a rune")
	require.Equal(t, "", ShortLine("\n \n", 200))
	require.Equal(t, "gh pr view: HTTP 502 …", ShortLine("gh pr view: HTTP 502\nretry later", 100))
	require.Equal(t, "abc …", ShortLine("abcdef", 3))
	require.Equal(t, "]0;t", ShortLine("\x1b]0;t\x07", 100))
}

func TestCleanLineDropsControlsAndFoldsLines(t *testing.T) {
	require.Equal(t, "a b c]0;t", CleanLine("a\tb\r\nc\x1b]0;t\x07"))
	require.Equal(t, "x\ny\tz", Clean("x\ry\tz\u009b"))
	require.True(t, IsControl('\x1b'))
	require.False(t, IsControl('\n'))
}

func TestSomeNamesAFewThenHowManyMore(t *testing.T) {
	require.Equal(t, "a, b", Some([]string{"a", "b"}, 3))
	require.Equal(t, "c01, c02, c03 and 2 more", Some([]string{"c01", "c02", "c03", "c04", "c05"}, 3))
	require.Equal(t, "", Some(nil, 5))
	require.Equal(t, "a, b and 3 more", Some([]string{"a", "b", "c", "d", "e"}, 2))
}

// Untrusted text leaves only made safe, however it is printed, and a
// state file keeps it as it came.
func TestUntrustedIsSafeWhereverItIsPrinted(t *testing.T) {
	u := From("fix\x1b]0;pwned\x07 it\r\nnow\tplease")
	for _, got := range []string{u.Line(), u.String(), fmt.Sprintf("%s|%v", u, u), u.Short(80)} {
		if strings.ContainsAny(got, "\x1b\x07\r\n") {
			t.Fatalf("a control character or break was printed: %q", got)
		}
	}
	if got := u.Block(); strings.ContainsAny(got, "\x1b\x07\r") || !strings.Contains(got, "\n") {
		t.Fatalf("Block keeps lines and drops controls: %q", got)
	}
	data, err := json.Marshal(struct{ T Untrusted }{u})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ T Untrusted }
	if err := json.Unmarshal(data, &back); err != nil || !back.T.Equal(u) {
		t.Fatalf("round trip through JSON changed the text: %s → %q (%v)", data, back.T.Block(), err)
	}
}

// A field of untrusted text is written exactly as a string field is, by
// an encoder that escapes HTML and by one that does not (--json).
func TestUntrustedIsWrittenAsAStringIs(t *testing.T) {
	s := "a <b> & \x1b]0;t\x07 é \u2028"
	for _, escape := range []bool{true, false} {
		var want, got strings.Builder
		we, ge := json.NewEncoder(&want), json.NewEncoder(&got)
		we.SetEscapeHTML(escape)
		ge.SetEscapeHTML(escape)
		if err := we.Encode(struct{ T string }{s}); err != nil {
			t.Fatal(err)
		}
		if err := ge.Encode(struct{ T Untrusted }{From(s)}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("escapeHTML %v: %s, want %s", escape, got.String(), want.String())
		}
	}
}

// A list of file names draws each name inert: no escape sequence, no
// line break of its own.
func TestSomeDrawsEachItemInert(t *testing.T) {
	got := Some([]string{"ok.go", "evil\x1b]0;PWN\x07\x1b[31mname\nline2.txt"}, 5)
	require.NotContains(t, got, "\x1b")
	require.NotContains(t, got, "\n")
	require.Contains(t, got, "ok.go, evil")
}

func TestStripEscapesTakesWholeSequences(t *testing.T) {
	for in, want := range map[string]string{
		"crash \x1b[31mred\x1b[0m thing":            "crash red thing",
		"a\x1b[1;33;40mb":                           "ab",
		"t\x1b]0;PWN\x07itle":                       "title",
		"t\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\": "tlink",
		"x\x1bcy":          "xy",
		"c1 \u009b31mred":  "c1 red",
		"plain [31m stays": "plain [31m stays",
		"end\x1b[":         "end",
	} {
		require.Equal(t, want, StripEscapes(in), "%q", in)
	}
}
