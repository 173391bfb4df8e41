package tmux

import "strings"

// Chip is text in tmux style markup as a coloured chip: a fixed
// background of the colour bg, a fixed foreground chosen to read on it,
// and a space either side. Both colours are set, so the chip reads the
// same on any status bar: on tmux's default green bar a green foreground
// alone was green on green. '#' in text is escaped, since it starts a
// format in tmux.
func Chip(bg, text string, bold bool) string {
	attr := "fg=" + ChipForeground(bg) + ",bg=" + bg
	if bold {
		attr += ",bold"
	}
	return "#[" + attr + "] " + strings.ReplaceAll(text, "#", "##") + " #[default]"
}

// ChipForeground is the foreground that reads on a chip of colour bg:
// white on the dark ones (red, blue, magenta, black), black on the rest.
func ChipForeground(bg string) string {
	switch bg {
	case "red", "blue", "magenta", "black":
		return "white"
	}
	return "black"
}
