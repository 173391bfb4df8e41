package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/freeze/font"
	"golang.org/x/image/font/sfnt"
)

// freeze draws PNGs with the one font it embeds (JetBrains Mono), with
// no fallback: a character the font lacks is drawn as an empty box. The
// few such characters the agents' screens use are drawn as the nearest
// one the font has; any other is said on stderr, so a new one is seen.
var stand = map[rune]rune{
	'✻': '*', '✶': '*', '✢': '*', '✳': '*', '✽': '*', '·': '·',
	'⎿': '└', '✕': '×', '✗': '×', '✓': '√', '⚠': '!',
}

type glyphs struct{ f *sfnt.Font }

func loadGlyphs() (glyphs, error) {
	f, err := sfnt.Parse(font.JetBrainsMonoTTF)
	if err != nil {
		return glyphs{}, fmt.Errorf("freeze's font: %w", err)
	}
	return glyphs{f}, nil
}

func (g glyphs) has(r rune) bool {
	var buf sfnt.Buffer
	i, err := g.f.GlyphIndex(&buf, r)
	return err == nil && i != 0
}

// fit replaces in text each character the font lacks.
func (g glyphs) fit(text string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 || g.has(r) {
			return r
		}
		if s, ok := stand[r]; ok && g.has(s) {
			return s
		}
		fmt.Fprintf(os.Stderr, "screenshots: %q (U+%04X) is not in freeze's font: drawn as '?'\n", r, r)
		return '?'
	}, text)
}
