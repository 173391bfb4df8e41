package popups

import (
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"
)

// formTheme is the huh theme of the forms (create, merge, delete), set
// from the popup's palette by useFormTheme; nil is huh's default.
var formTheme *huh.Theme

// useFormTheme makes the forms draw in p's colours: huh's Charm theme
// told the background for the 256-colour palettes, the ANSI 16 for
// dark-ansi, and the plain base theme for light-ansi (the ANSI 16 draws
// light grey on it) and for no colour.
func useFormTheme(p palette) {
	switch p.Name {
	case "dark", "light":
		lipgloss.SetHasDarkBackground(p.Name == "dark")
		formTheme = huh.ThemeCharm()
	case "dark-ansi":
		formTheme = huh.ThemeBase16()
	default:
		formTheme = huh.ThemeBase()
	}
}
