// Package termtheme is the colours of owt's interactive screens: four
// palettes (dark, light, dark-ansi, light-ansi) and none, one SGR style
// per role, and the choice among them: NO_COLOR set (no colour at all);
// else a theme named by the user (--theme, then the tmux option
// @owt-theme); else auto: the background the terminal reports to an OSC
// 11 query, else COLORFGBG, else dark — in 256 colours when the terminal
// has them, else in the 16 ANSI colours the user's terminal theme sets.
//
// The choice is a pure function of its inputs; asking the terminal is
// QueryBackground. Imports no other owt package.
package termtheme

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Names are the themes a user can name (auto: follow the background).
var Names = []string{"auto", "dark", "light", "dark-ansi", "light-ansi"}

// Check refuses a theme name that is none of Names.
func Check(name string) error {
	for _, t := range Names {
		if name == t {
			return nil
		}
	}
	return fmt.Errorf("unknown theme %q: use one of %s", name, strings.Join(Names, ", "))
}

// Role is what a colour is for; a palette says how each is drawn.
type Role int

const (
	Bold   Role = iota
	Dim         // what matters less: ages, repos, tasks
	Bad         // needs you, conflicts, deletions
	Good        // merges cleanly, insertions
	Busy        // sending
	Cursor      // the selected row
	Ready       // the READY TO SHIP heading
	Flight      // the IN FLIGHT heading
	Queued      // the QUEUED heading
	Hunk        // a diff's @@ line
	roles
)

// Palette is the SGR parameters of each role; the zero Palette (and
// "none") draws no colour and no reverse video.
type Palette struct {
	Name string
	sgr  [roles]string
}

// Colored reports whether p draws colours at all.
func (p Palette) Colored() bool { return p.Name != "" && p.Name != "none" }

// SGR is the style parameters of r in p ("" without colour).
func (p Palette) SGR(r Role) string {
	if !p.Colored() {
		return ""
	}
	return p.sgr[r]
}

// Paint wraps s in p's style for r (s itself without colour).
func (p Palette) Paint(r Role, s string) string {
	if s == "" || p.SGR(r) == "" {
		return s
	}
	return "\x1b[" + p.sgr[r] + "m" + s + "\x1b[0m"
}

var palettes = map[string]Palette{
	"dark": {Name: "dark", sgr: [roles]string{
		Bold: "1", Dim: "38;5;245", Bad: "1;38;5;203", Good: "38;5;114", Busy: "38;5;221",
		Cursor: "7", Ready: "1;38;5;114", Flight: "1;38;5;221", Queued: "1;38;5;111", Hunk: "38;5;80"}},
	"light": {Name: "light", sgr: [roles]string{
		Bold: "1", Dim: "38;5;242", Bad: "1;38;5;160", Good: "38;5;28", Busy: "38;5;130",
		Cursor: "7", Ready: "1;38;5;28", Flight: "1;38;5;130", Queued: "1;38;5;25", Hunk: "38;5;31"}},
	// The ANSI ones leave the shades to the user's terminal theme.
	"dark-ansi": {Name: "dark-ansi", sgr: [roles]string{
		Bold: "1", Dim: "2", Bad: "1;31", Good: "32", Busy: "33",
		Cursor: "7", Ready: "1;32", Flight: "1;33", Queued: "1;34", Hunk: "36"}},
	// Yellow vanishes on white: magenta stands in for it.
	"light-ansi": {Name: "light-ansi", sgr: [roles]string{
		Bold: "1", Dim: "2", Bad: "1;31", Good: "32", Busy: "35",
		Cursor: "7", Ready: "1;32", Flight: "1;35", Queued: "1;34", Hunk: "36"}},
	"none": {Name: "none"},
}

// Named is the palette called name: one of Names but auto, or "none".
func Named(name string) (Palette, bool) {
	p, ok := palettes[name]
	return p, ok
}

// Inputs is everything the choice of a palette depends on.
type Inputs struct {
	NoColor   bool   // NO_COLOR is set (not empty)
	Flag      string // --theme
	Option    string // @owt-theme
	OSC11     string // the terminal's reply to OSC 11, "" when none came
	ColorFGBG string // $COLORFGBG
	Colors256 bool   // the terminal draws 256 colours
}

// Named reports the palette the user named (Flag, else Option), if any:
// auto, an empty or an unknown name names none.
func (in Inputs) Named() (Palette, bool) {
	if in.NoColor {
		return palettes["none"], true
	}
	for _, name := range []string{in.Flag, in.Option} {
		name = strings.ToLower(strings.TrimSpace(name))
		if p, ok := palettes[name]; ok && name != "none" {
			return p, true
		}
	}
	return Palette{}, false
}

// Choose picks the palette for in (see the package comment). An unknown
// @owt-theme counts as auto.
func Choose(in Inputs) Palette {
	if p, ok := in.Named(); ok {
		return p
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

// FromEnv fills what the environment says: NO_COLOR, COLORFGBG, and
// whether TERM or COLORTERM promise 256 colours (tmux maps them to the
// client's terminal).
func FromEnv(in Inputs) Inputs {
	in.NoColor = os.Getenv("NO_COLOR") != ""
	in.ColorFGBG = os.Getenv("COLORFGBG")
	t, ct := os.Getenv("TERM"), strings.ToLower(os.Getenv("COLORTERM"))
	in.Colors256 = strings.Contains(t, "256color") || strings.Contains(t, "direct") || ct == "truecolor" || ct == "24bit"
	return in
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
