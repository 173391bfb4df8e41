package termtheme

import (
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
)

func TestOSC11Light(t *testing.T) {
	for reply, want := range map[string]bool{
		"\x1b]11;rgb:ffff/ffff/ffff\x1b\\": true,
		"\x1b]11;rgb:0000/0000/0000\x07":   false,
		"\x1b]11;rgb:fdf6/f6e3/e3e3\x1b\\": true,  // solarized light
		"\x1b]11;rgb:2828/2c2c/3434\x1b\\": false, // one dark
		"\x1b]11;rgb:ff/ff/ff\x07":         true,  // two hex digits a channel
		"\x1b]11;rgb:f/f/f\x07":            true,
	} {
		got, ok := osc11Light(reply)
		require.True(t, ok, "%q", reply)
		require.Equal(t, want, got, "%q", reply)
	}
	for _, bad := range []string{"", "\x1b]11;?\x07", "\x1b]11;rgb:zz/00/00\x07", "\x1b]11;rgb:ffff/ffff\x07", "\x1b]11;rgb:fffff/0/0\x07"} {
		_, ok := osc11Light(bad)
		require.False(t, ok, "%q", bad)
	}
}

func TestColorFGBGLight(t *testing.T) {
	for v, want := range map[string]bool{"15;0": false, "0;15": true, "0;7": true, "7;8": false, "0;default;15": true, "15;default;0": false, "0;12": true} {
		got, ok := colorFGBGLight(v)
		require.True(t, ok, v)
		require.Equal(t, want, got, v)
	}
	for _, bad := range []string{"", "15;default", "x"} {
		_, ok := colorFGBGLight(bad)
		require.False(t, ok, bad)
	}
}

func TestChoosePalette(t *testing.T) {
	white, black := "\x1b]11;rgb:ffff/ffff/ffff\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"
	for _, c := range []struct {
		in   Inputs
		want string
	}{
		{Inputs{Colors256: true}, "dark"}, // nothing known: dark
		{Inputs{}, "dark-ansi"},
		{Inputs{OSC11: white, Colors256: true}, "light"},
		{Inputs{OSC11: white}, "light-ansi"},
		{Inputs{OSC11: black, ColorFGBG: "0;15", Colors256: true}, "dark"}, // the terminal's answer wins
		{Inputs{ColorFGBG: "0;15", Colors256: true}, "light"},              // the fallback
		{Inputs{ColorFGBG: "15;0"}, "dark-ansi"},
		{Inputs{Option: "light", OSC11: black}, "light"}, // @owt-theme over the terminal
		{Inputs{Option: " Light-ANSI ", Colors256: true}, "light-ansi"},
		{Inputs{Option: "auto", OSC11: white, Colors256: true}, "light"},
		{Inputs{Option: "purple", OSC11: white, Colors256: true}, "light"}, // unknown: auto
		{Inputs{Flag: "dark", Option: "light"}, "dark"},                    // --theme over @owt-theme
		{Inputs{Flag: "auto", Option: "light-ansi", Colors256: true}, "light-ansi"},
		{Inputs{NoColor: true, Flag: "light", Option: "dark"}, "none"}, // NO_COLOR over everything
	} {
		require.Equal(t, c.want, Choose(c.in).Name, "%+v", c.in)
	}
	require.Error(t, Check("purple"))
	require.NoError(t, Check("light-ansi"))
}

func TestPalettesPaint(t *testing.T) {
	require.Equal(t, "x", palettes["none"].Paint(Bad, "x"), "no colour at all")
	require.False(t, palettes["none"].Colored())
	require.Equal(t, "\x1b[1;38;5;160mx\x1b[0m", palettes["light"].Paint(Bad, "x"))
	require.Equal(t, "\x1b[1;31mx\x1b[0m", palettes["dark-ansi"].Paint(Bad, "x"))
	for name, p := range palettes {
		if name == "none" {
			continue
		}
		for r := Role(0); r < roles; r++ {
			require.NotEmpty(t, p.sgr[r], "%s has every role", name)
		}
	}
	// The ANSI palettes stay within the 16 colours the user's theme sets.
	for _, name := range []string{"dark-ansi", "light-ansi"} {
		for _, sgr := range palettes[name].sgr {
			require.NotContains(t, sgr, "38;5", name)
		}
	}
}

// The query is answered by a terminal (the test, on a pty's far side):
// the OSC 11 reply is returned, and the DA1 reply ends the wait at once.
func TestQueryBackgroundReadsTheReplyUntilDA1(t *testing.T) {
	master, tty, err := pty.Open()
	require.NoError(t, err)
	defer master.Close()
	defer tty.Close()
	go func() {
		buf := make([]byte, 64)
		var q string
		for !strings.Contains(q, "\x1b[c") {
			n, err := master.Read(buf)
			if err != nil {
				return
			}
			q += string(buf[:n])
		}
		_, _ = master.Write([]byte("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?1;2c"))
	}()
	start := time.Now()
	reply := QueryBackground(tty, tty, 5*time.Second)
	require.Less(t, time.Since(start), 2*time.Second, "DA1 ends the wait, not the timeout")
	light, ok := osc11Light(reply)
	require.True(t, ok, "%q", reply)
	require.True(t, light)

	// A terminal that answers only DA1: no reply, and no wait either.
	go func() {
		buf := make([]byte, 64)
		var q string
		for !strings.Contains(q, "\x1b[c") {
			n, err := master.Read(buf)
			if err != nil {
				return
			}
			q += string(buf[:n])
		}
		_, _ = master.Write([]byte("\x1b[?1;2c"))
	}()
	start = time.Now()
	require.Empty(t, QueryBackground(tty, tty, 5*time.Second))
	require.Less(t, time.Since(start), 2*time.Second)
}
