package popups

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/owt-tmux/owt/internal/tmux"
)

// Themes: the popups follow the terminal's background. One palette gives
// every colour a screen draws; which one is chosen, in order: NO_COLOR
// set (no colour at all); --theme; the tmux option @owt-theme; else auto:
// the background the terminal reports to an OSC 11 query (in a pane
// tmux answers it from the window's style; in a popup tmux 3.3 does
// not), else COLORFGBG, else dark — in 256 colours when the terminal has them,
// else in the 16 ANSI colours the user's terminal theme sets.

// OptTheme is the tmux option that picks the popups' theme.
const OptTheme = "@owt-theme"

// Themes are the names --theme and @owt-theme take.
var Themes = []string{"auto", "dark", "light", "dark-ansi", "light-ansi"}

// role is what a colour is for; a palette says how each is drawn.
type role int

const (
	sgrBold role = iota
	sgrDim
	sgrRed    // bad: needs you, conflicts, deletions
	sgrGreen  // good: merges cleanly, insertions
	sgrYellow // busy: sending
	sgrCursor // the selected row
	sgrReady  // the READY TO SHIP heading
	sgrFlight // the IN FLIGHT heading
	sgrQueued // the QUEUED heading
	sgrHunk   // a diff's @@ line
	roles
)

// palette is the SGR parameters of each role; the zero palette ("none")
// draws no colour and no reverse video.
type palette struct {
	name string
	sgr  [roles]string
}

func (p palette) colored() bool { return p.name != "" && p.name != "none" }

// paint wraps s in p's style for r (nothing without colour).
func (p palette) paint(r role, s string) string {
	if !p.colored() || s == "" || p.sgr[r] == "" {
		return s
	}
	return "\x1b[" + p.sgr[r] + "m" + s + "\x1b[0m"
}

var palettes = map[string]palette{
	"dark": {name: "dark", sgr: [roles]string{
		sgrBold: "1", sgrDim: "38;5;245", sgrRed: "1;38;5;203", sgrGreen: "38;5;114", sgrYellow: "38;5;221",
		sgrCursor: "7", sgrReady: "1;38;5;114", sgrFlight: "1;38;5;221", sgrQueued: "1;38;5;111", sgrHunk: "38;5;80"}},
	"light": {name: "light", sgr: [roles]string{
		sgrBold: "1", sgrDim: "38;5;242", sgrRed: "1;38;5;160", sgrGreen: "38;5;28", sgrYellow: "38;5;130",
		sgrCursor: "7", sgrReady: "1;38;5;28", sgrFlight: "1;38;5;130", sgrQueued: "1;38;5;25", sgrHunk: "38;5;31"}},
	// The ANSI ones leave the shades to the user's terminal theme.
	"dark-ansi": {name: "dark-ansi", sgr: [roles]string{
		sgrBold: "1", sgrDim: "2", sgrRed: "1;31", sgrGreen: "32", sgrYellow: "33",
		sgrCursor: "7", sgrReady: "1;32", sgrFlight: "1;33", sgrQueued: "1;34", sgrHunk: "36"}},
	// Yellow vanishes on white: magenta stands in for it.
	"light-ansi": {name: "light-ansi", sgr: [roles]string{
		sgrBold: "1", sgrDim: "2", sgrRed: "1;31", sgrGreen: "32", sgrYellow: "35",
		sgrCursor: "7", sgrReady: "1;32", sgrFlight: "1;35", sgrQueued: "1;34", sgrHunk: "36"}},
	"none": {name: "none"},
}

// themeInputs is everything the choice of a palette depends on.
type themeInputs struct {
	NoColor   bool   // NO_COLOR is set (to anything)
	Flag      string // --theme
	Option    string // @owt-theme
	OSC11     string // the terminal's reply to OSC 11, "" when none came
	ColorFGBG string // $COLORFGBG
	Colors256 bool   // the terminal draws 256 colours
}

// checkTheme refuses a theme name that is none of Themes.
func checkTheme(name string) error {
	for _, t := range Themes {
		if name == t {
			return nil
		}
	}
	return fmt.Errorf("unknown theme %q: use one of %s", name, strings.Join(Themes, ", "))
}

// choosePalette picks the palette for in; auto asks the background (see
// the top of this file). An unknown @owt-theme counts as auto.
func choosePalette(in themeInputs) palette {
	if in.NoColor {
		return palettes["none"]
	}
	for _, name := range []string{in.Flag, in.Option} {
		name = strings.ToLower(strings.TrimSpace(name))
		if p, ok := palettes[name]; ok && name != "none" {
			return p
		}
	}
	light, ok := osc11Light(in.OSC11)
	if !ok {
		light, ok = colorFGBGLight(in.ColorFGBG)
	}
	name := "dark"
	if ok && light {
		name = "light"
	}
	if !in.Colors256 {
		name += "-ansi"
	}
	return palettes[name]
}

// osc11Light reads a terminal's OSC 11 reply (ESC ] 11 ; rgb:RRRR/GGGG/BBBB,
// each 1 to 4 hex digits, ended by BEL or ST) and says whether that
// background is light.
func osc11Light(reply string) (light, ok bool) {
	i := strings.Index(reply, "rgb:")
	if i < 0 {
		return false, false
	}
	spec := reply[i+4:]
	if j := strings.IndexAny(spec, "\a\x1b"); j >= 0 {
		spec = spec[:j]
	}
	parts := strings.Split(spec, "/")
	if len(parts) != 3 {
		return false, false
	}
	var c [3]float64
	for k, h := range parts {
		if len(h) == 0 || len(h) > 4 {
			return false, false
		}
		v, err := strconv.ParseUint(h, 16, 16)
		if err != nil {
			return false, false
		}
		c[k] = float64(v) / float64(uint64(1)<<(4*len(h))-1)
	}
	// Perceived brightness (ITU-R BT.601 weights).
	return 0.299*c[0]+0.587*c[1]+0.114*c[2] > 0.5, true
}

// colorFGBGLight reads $COLORFGBG ("15;0", "0;default;15": the last field
// is the background's ANSI colour) and says whether it is light: white
// (7) and the bright colours but dark grey (9–15) are.
func colorFGBGLight(v string) (light, ok bool) {
	if v == "" {
		return false, false
	}
	fields := strings.Split(v, ";")
	bg, err := strconv.Atoi(fields[len(fields)-1])
	if err != nil || bg < 0 || bg > 255 {
		return false, false
	}
	return bg == 7 || (bg >= 9 && bg <= 15), true
}

// colors256 says whether the terminal the popup draws on has 256 colours
// (tmux's TERM says so for the pane; tmux maps them to the client's).
func colors256() bool {
	t := os.Getenv("TERM")
	ct := strings.ToLower(os.Getenv("COLORTERM"))
	return strings.Contains(t, "256color") || strings.Contains(t, "direct") || ct == "truecolor" || ct == "24bit"
}

// themeFlag is the --theme the popup program was started with ("" when
// none); main sets it.
var themeFlag string

// SetTheme is the popup program's --theme; an unknown name is refused.
func SetTheme(name string) error {
	if err := checkTheme(name); err != nil {
		return err
	}
	themeFlag = name
	return nil
}

// themeOf chooses the palette of a popup on s: it asks tmux for
// @owt-theme, and the terminal for its background only when auto.
func themeOf(tm *tmux.Client, s Screen) palette {
	in := themeInputs{
		Flag:      themeFlag,
		ColorFGBG: os.Getenv("COLORFGBG"),
		Colors256: colors256(),
	}
	in.NoColor = os.Getenv("NO_COLOR") != ""
	if in.NoColor {
		return palettes["none"]
	}
	if in.Flag == "" || in.Flag == "auto" {
		if tm != nil {
			in.Option, _ = tm.ShowOption("", OptTheme)
		}
		if p, ok := palettes[strings.ToLower(strings.TrimSpace(in.Option))]; !ok || p.name == "none" {
			in.OSC11 = queryBackground(s, 150*time.Millisecond)
		}
	}
	return choosePalette(in)
}

// queryBackground asks the terminal of s for its background colour (OSC
// 11) followed by a device-attributes query (DA1) that every terminal,
// and tmux itself, answers: the reply to the second ends the wait, so a
// terminal that does not know OSC 11 costs one round trip, not the
// timeout. The reply to the first is returned, "" when none came.
func queryBackground(s Screen, timeout time.Duration) string {
	if s.In == nil {
		return ""
	}
	fd := int(s.In.Fd())
	if !term.IsTerminal(fd) {
		return ""
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return ""
	}
	defer func() { _ = term.Restore(fd, old) }()
	if _, err := fmt.Fprint(s.Out, "\x1b]11;?\x1b\\\x1b[c"); err != nil {
		return ""
	}
	var got []byte
	buf := make([]byte, 256)
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		k, err := s.In.Read(buf)
		if err != nil || k == 0 {
			break
		}
		got = append(got, buf[:k]...)
		if da1Done(got) {
			break
		}
	}
	reply := string(got)
	if i := strings.Index(reply, "\x1b[?"); i >= 0 {
		reply = reply[:i]
	}
	return reply
}

// da1Done reports whether b holds the whole reply to DA1 (ESC [ ? … c).
func da1Done(b []byte) bool {
	s := string(b)
	i := strings.Index(s, "\x1b[?")
	return i >= 0 && strings.ContainsRune(s[i:], 'c')
}
