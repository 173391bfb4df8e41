package main

import (
	"fmt"
	"strconv"
	"strings"
)

// What tmux capture-pane -e prints is text with SGR sequences (colours
// and attributes) in tmux's own shorthand: 40–47 backgrounds, reverse
// video, bold, dim, "39"/"49" back to the default. freeze draws only
// explicit foregrounds and 48;… backgrounds and ignores reverse video,
// so the status bar's background and a picker's selected row would be
// lost. normalize reads the screen into styled runs and writes each run
// again with its colours spelled out as RGB, which freeze draws as the
// terminal showed them.

// theme is the terminal the screenshots pretend to be: its default
// colours and its 16 named ones (freeze's own palette, so the frame and
// the text agree).
type theme struct {
	fg, bg rgb
	named  [16]rgb
}

type rgb struct{ r, g, b uint8 }

func (c rgb) String() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

func hex(s string) rgb {
	v, _ := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	return rgb{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

var defaultTheme = theme{
	fg: hex("#d0d0d0"),
	bg: hex("#171717"),
	named: [16]rgb{
		hex("#282a2e"), hex("#d74e6f"), hex("#31bb71"), hex("#d3e561"),
		hex("#8056ff"), hex("#ed61d7"), hex("#04d7d7"), hex("#c5c8c6"),
		hex("#4b4b4b"), hex("#fe5f86"), hex("#00d787"), hex("#ebff71"),
		hex("#8f69ff"), hex("#ff7aea"), hex("#00fefe"), hex("#ffffff"),
	},
}

// tcolor is a terminal colour: the default, one of 256, or RGB.
type tcolor struct {
	kind uint8 // 0 default, 1 indexed, 2 rgb
	idx  uint8
	rgb  rgb
}

type style struct {
	fg, bg                                  tcolor
	bold, dim, italic, under, reverse, hide bool
	strike                                  bool
}

func (t theme) index(i uint8) rgb {
	switch {
	case i < 16:
		return t.named[i]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return rgb{level(i / 36), level(i / 6 % 6), level(i % 6)}
	default:
		v := 8 + 10*(i-232)
		return rgb{v, v, v}
	}
}

// resolve says the colours a cell of style s is drawn in.
func (t theme) resolve(s style) (fg, bg rgb, hasBG bool) {
	fg, bg = t.fg, t.bg
	switch s.fg.kind {
	case 1:
		i := s.fg.idx
		if s.bold && i < 8 { // bold brightens the eight named colours, as terminals do
			i += 8
		}
		fg = t.index(i)
	case 2:
		fg = s.fg.rgb
	}
	switch s.bg.kind {
	case 1:
		bg, hasBG = t.index(s.bg.idx), true
	case 2:
		bg, hasBG = s.bg.rgb, true
	}
	if s.reverse {
		fg, bg, hasBG = bg, fg, true
	}
	if s.dim {
		fg = rgb{uint8((int(fg.r) + int(bg.r)) / 2), uint8((int(fg.g) + int(bg.g)) / 2), uint8((int(fg.b) + int(bg.b)) / 2)}
	}
	if s.hide {
		fg = bg
	}
	return fg, bg, hasBG
}

// apply changes s by one SGR sequence's parameters ("1;38;5;245").
func (s *style) apply(params string) {
	if params == "" {
		*s = style{}
		return
	}
	ps := strings.Split(params, ";")
	num := func(p string) int {
		n, _ := strconv.Atoi(p)
		return n
	}
	// extended reads a 38/48 colour, from its own sub-parameters
	// (38:5:245, 38:2::r:g:b) or from the parameters after it.
	extended := func(i int) (tcolor, int) {
		sub := strings.Split(ps[i], ":")
		rest := sub[1:]
		used := 0
		if len(rest) == 0 {
			rest = ps[i+1:]
			used = -1
		}
		if len(rest) == 0 {
			return tcolor{}, 0
		}
		switch num(rest[0]) {
		case 5:
			if len(rest) < 2 {
				return tcolor{}, 0
			}
			if used < 0 {
				used = 2
			}
			return tcolor{kind: 1, idx: uint8(num(rest[1]))}, used
		case 2:
			v := rest[1:]
			if used >= 0 && len(v) == 4 { // 38:2::r:g:b names a colour space first
				v = v[1:]
			}
			if len(v) < 3 {
				return tcolor{}, 0
			}
			if used < 0 {
				used = 4
			}
			return tcolor{kind: 2, rgb: rgb{uint8(num(v[0])), uint8(num(v[1])), uint8(num(v[2]))}}, used
		}
		return tcolor{}, 0
	}
	for i := 0; i < len(ps); i++ {
		code, _, _ := strings.Cut(ps[i], ":")
		switch n := num(code); {
		case n == 0:
			*s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.under = !strings.HasSuffix(ps[i], ":0")
		case n == 7:
			s.reverse = true
		case n == 8:
			s.hide = true
		case n == 9:
			s.strike = true
		case n == 21 || n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.under = false
		case n == 27:
			s.reverse = false
		case n == 28:
			s.hide = false
		case n == 29:
			s.strike = false
		case n >= 30 && n <= 37:
			s.fg = tcolor{kind: 1, idx: uint8(n - 30)}
		case n == 38:
			c, used := extended(i)
			s.fg = c
			i += used
		case n == 39:
			s.fg = tcolor{}
		case n >= 40 && n <= 47:
			s.bg = tcolor{kind: 1, idx: uint8(n - 40)}
		case n == 48:
			c, used := extended(i)
			s.bg = c
			i += used
		case n == 49:
			s.bg = tcolor{}
		case n >= 90 && n <= 97:
			s.fg = tcolor{kind: 1, idx: uint8(n - 90 + 8)}
		case n >= 100 && n <= 107:
			s.bg = tcolor{kind: 1, idx: uint8(n - 100 + 8)}
		}
	}
}

// normalize rewrites a capture-pane -e screen so that every run of text
// carries its colours as RGB: a reset, the foreground, the background
// when it is not the terminal's, italics, underline. Sequences other
// than SGR are dropped; the style carries over line ends, as in tmux's
// capture. fit replaces what the font cannot draw.
func normalize(screen string, t theme, fit func(string) string) string {
	var out strings.Builder
	var cur style
	for _, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
		var run strings.Builder
		var runStyle style
		flush := func() {
			if run.Len() == 0 {
				return
			}
			fg, bg, hasBG := t.resolve(runStyle)
			fmt.Fprintf(&out, "\x1b[0m\x1b[38;2;%d;%d;%dm", fg.r, fg.g, fg.b)
			if hasBG && bg != t.bg {
				fmt.Fprintf(&out, "\x1b[48;2;%d;%d;%dm", bg.r, bg.g, bg.b)
			}
			if runStyle.italic {
				out.WriteString("\x1b[3m")
			}
			if runStyle.under {
				out.WriteString("\x1b[4m")
			}
			if runStyle.strike {
				out.WriteString("\x1b[9m")
			}
			out.WriteString(run.String())
			run.Reset()
		}
		for i := 0; i < len(line); {
			if line[i] != 0x1b {
				j := strings.IndexByte(line[i:], 0x1b)
				if j < 0 {
					j = len(line) - i
				}
				if run.Len() > 0 && runStyle != cur {
					flush()
				}
				runStyle = cur
				run.WriteString(fit(strings.ReplaceAll(line[i:i+j], "\t", " ")))
				i += j
				continue
			}
			n, params, final := escape(line[i:])
			if final == 'm' {
				cur.apply(params)
			}
			i += n
		}
		flush()
		out.WriteString("\x1b[0m\n")
	}
	return out.String()
}

// escape measures the escape sequence at the start of s: its length,
// and for a CSI its parameters and final byte.
func escape(s string) (n int, params string, final byte) {
	if len(s) < 2 {
		return len(s), "", 0
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1, s[2:i], s[i]
			}
		}
		return len(s), "", 0
	case ']', 'P', '_': // OSC, DCS, APC: up to BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1, "", 0
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2, "", 0
			}
		}
		return len(s), "", 0
	}
	return 2, "", 0
}
