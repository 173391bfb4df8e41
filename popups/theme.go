package popups

import (
	"os"
	"time"

	"github.com/owt-tmux/owt/internal/termtheme"
	"github.com/owt-tmux/owt/internal/tmux"
)

// OptTheme is the tmux option that names the popups' theme (see
// internal/termtheme for the choice).
const OptTheme = "@owt-theme"

// The roles the screens paint in, by the names they use.
const (
	sgrBold   = termtheme.Bold
	sgrDim    = termtheme.Dim
	sgrRed    = termtheme.Bad
	sgrGreen  = termtheme.Good
	sgrYellow = termtheme.Busy
	sgrCursor = termtheme.Cursor
	sgrReady  = termtheme.Ready
	sgrFlight = termtheme.Flight
	sgrQueued = termtheme.Queued
	sgrHunk   = termtheme.Hunk
)

// palette is a popup's colours.
type palette = termtheme.Palette

// paletteNamed is the named palette (dark, light, dark-ansi, light-ansi, none).
func paletteNamed(name string) palette {
	p, _ := termtheme.Named(name)
	return p
}

// themeFlag is the --theme the popup program was started with ("" when
// none); SetTheme sets it.
var themeFlag string

// SetTheme is the popup program's --theme; an unknown name is refused.
func SetTheme(name string) error {
	if err := termtheme.Check(name); err != nil {
		return err
	}
	themeFlag = name
	return nil
}

// themeOf chooses the palette of a popup on s: it asks tmux for
// @owt-theme, and the terminal for its background only when neither
// that nor --theme names one.
func themeOf(tm *tmux.Client, s Screen) palette {
	in := themeInputs(tm)
	if _, named := in.Named(); !named {
		in.OSC11 = termtheme.QueryBackground(s.In, s.Out, 150*time.Millisecond)
	}
	return termtheme.Choose(in)
}

// pickerTheme is themeOf without asking the terminal: the query reads
// the terminal's input, and would swallow what the user typed ahead into
// a picker (Alt+s, then a name and Enter at once). COLORFGBG, else dark,
// stands in for the answer.
func pickerTheme(tm *tmux.Client) palette {
	return termtheme.Choose(themeInputs(tm))
}

// themeInputs are --theme, NO_COLOR and COLORFGBG, and @owt-theme when
// they name no theme.
func themeInputs(tm *tmux.Client) termtheme.Inputs {
	in := termtheme.FromEnv(termtheme.Inputs{Flag: themeFlag})
	if _, named := in.Named(); !named && tm != nil {
		in.Option, _ = tm.ShowOption("", OptTheme)
	}
	return in
}

// errorPalette paints the error a popup shows before it closes: red reads
// on any background.
func errorPalette() palette {
	if os.Getenv("NO_COLOR") != "" {
		return paletteNamed("none")
	}
	return paletteNamed("dark-ansi")
}
