package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

type mode int

const (
	modeIdle mode = iota
	modeWorking
	modeAsking
)

// askPrompt is a permission prompt on screen.
type askPrompt struct {
	command  string
	selected int
	reply    chan int // receives the chosen option index (0 once, 1 always)
}

// screenState is everything the screen shows. The app guards it with its mutex.
type screenState struct {
	cwd        string
	transcript []string
	input      []rune
	mode       mode
	workStart  time.Time
	ask        *askPrompt
	hint       string
	hintUntil  time.Time
	// notice is the right end of the footer until the next prompt:
	// Claude Code's "Not logged in · run /login" after a turn its login
	// failed.
	notice string
	queued []string
}

type styledLine struct {
	text string
	sgr  string // SGR parameters applied to the whole line, "" for none
}

// frame is one rendered screen: lines top to bottom and the cursor.
type frame struct {
	width      int
	lines      []styledLine
	cursorRow  int
	cursorCol  int
	showCursor bool
}

// text returns the frame as tmux capture-pane -p would print it.
func (f frame) text() string {
	var b strings.Builder
	for _, l := range f.lines {
		b.WriteString(strings.TrimRight(l.text, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func plain(lines ...string) []styledLine {
	out := make([]styledLine, len(lines))
	for i, l := range lines {
		out[i] = styledLine{text: l}
	}
	return out
}

// render draws the state for a terminal of w columns and h rows.
func render(p *persona, st *screenState, w, h int, now time.Time) frame {
	if w < 20 {
		w = 20
	}
	if h < 5 {
		h = 5
	}
	cwd := displayPath(st.cwd)

	var top []styledLine
	top = append(top, renderBanner(p, cwd, w)...)
	top = append(top, styledLine{})
	for _, t := range st.transcript {
		for _, l := range wrap(t, w) {
			top = append(top, styledLine{text: l})
		}
	}
	if len(st.transcript) > 0 {
		top = append(top, styledLine{})
	}

	var bottom []styledLine
	cursorRow, cursorCol, showCursor := 0, 0, false
	withInput := func() {
		lines, row, col := renderInput(p, st.input, w)
		cursorRow, cursorCol, showCursor = len(bottom)+row, col, true
		bottom = append(bottom, lines...)
		footer := strings.ReplaceAll(p.footer, "{cwd}", cwd)
		if st.hint != "" && now.Before(st.hintUntil) {
			footer = "  " + st.hint
		}
		if st.notice != "" {
			// Claude Code draws it at the right end, in place of "? for
			// shortcuts".
			footer = "  " + strings.Repeat(" ", 40) + st.notice
		}
		if footer != "" {
			bottom = append(bottom, styledLine{text: truncate(footer, w), sgr: "2"})
		}
	}
	switch st.mode {
	case modeIdle:
		withInput()
	case modeWorking:
		secs := int(now.Sub(st.workStart) / time.Second)
		frameIdx := int(now.Sub(st.workStart)/(120*time.Millisecond)) % len(p.spinner)
		spin := fmt.Sprintf(p.working, p.spinner[frameIdx], secs)
		bottom = append(bottom, styledLine{text: truncate(spin, w), sgr: "38;5;174"}, styledLine{})
		for _, q := range st.queued {
			bottom = append(bottom, styledLine{text: truncate("  ⎿ Queued: "+summary(q), w), sgr: "2"})
		}
		if p.inputWhileWorking {
			withInput()
		}
	case modeAsking:
		lines, row, col := renderAsk(p, st.ask, w)
		cursorRow, cursorCol = row, col
		showCursor = p.ask.inline != ""
		bottom = append(bottom, lines...)
	}

	if len(bottom) > h {
		cut := len(bottom) - h
		bottom = bottom[cut:]
		cursorRow -= cut
	}
	if extra := len(top) + len(bottom) - h; extra > 0 {
		top = top[extra:]
	}
	return frame{
		width:      w,
		lines:      append(top, bottom...),
		cursorRow:  len(top) + max(cursorRow, 0),
		cursorCol:  cursorCol,
		showCursor: showCursor,
	}
}

func renderBanner(p *persona, cwd string, w int) []styledLine {
	lines := make([]string, len(p.banner))
	for i, l := range p.banner {
		lines[i] = strings.ReplaceAll(l, "{cwd}", cwd)
	}
	var out []styledLine
	if p.bannerBoxed {
		inner := 0
		for _, l := range lines {
			inner = max(inner, runeLen(l))
		}
		inner = min(inner+2, w-4)
		out = append(out, styledLine{text: "╭" + strings.Repeat("─", inner+2) + "╮"})
		for _, l := range lines {
			out = append(out, styledLine{text: "│ " + pad(truncate(l, inner), inner) + " │"})
		}
		out = append(out, styledLine{text: "╰" + strings.Repeat("─", inner+2) + "╯"})
		if len(out) > 1 {
			out[1].sgr = p.bannerSGR
		}
		return out
	}
	for _, l := range lines {
		out = append(out, styledLine{text: truncate(l, w)})
	}
	if len(out) > 0 {
		out[0].sgr = p.bannerSGR
	}
	return out
}

// renderInput draws the input prompt with its text; row and col give the
// cursor (at the end of the text) relative to the returned lines.
func renderInput(p *persona, input []rune, w int) (lines []styledLine, row, col int) {
	left, right := 0, 0 // columns taken by borders
	switch p.input {
	case inputRounded, inputSquare:
		left, right = 2, 2
	case inputBar:
		left = 2
	}
	content := w - left - right

	var body []string
	var sgr string
	prefixLen := runeLen(p.prefix)
	if len(input) == 0 {
		body = []string{p.prefix + p.placeholder}
		if p.placeholder != "" {
			sgr = "2"
		}
		row, col = 0, prefixLen
	} else {
		cont := strings.Repeat(" ", prefixLen)
		for i, logical := range strings.Split(string(input), "\n") {
			prefix := p.prefix
			if i > 0 {
				prefix = cont
			}
			for j, chunk := range hardWrap(logical, max(content-prefixLen, 1)) {
				if j > 0 {
					prefix = cont
				}
				body = append(body, prefix+chunk)
			}
		}
		last := body[len(body)-1]
		row, col = len(body)-1, runeLen(last)
	}

	switch p.input {
	case inputRounded, inputSquare:
		tl, tr, bl, br := "╭", "╮", "╰", "╯"
		if p.input == inputSquare {
			tl, tr, bl, br = "┌", "┐", "└", "┘"
		}
		lines = append(lines, styledLine{text: tl + strings.Repeat("─", w-2) + tr})
		for _, b := range body {
			lines = append(lines, styledLine{text: "│ " + pad(truncate(b, content), content) + " │", sgr: sgr})
		}
		lines = append(lines, styledLine{text: bl + strings.Repeat("─", w-2) + br})
		return lines, row + 1, col + left
	case inputBar:
		lines = append(lines, styledLine{text: "┃"})
		for _, b := range body {
			lines = append(lines, styledLine{text: "┃ " + truncate(b, content), sgr: sgr})
		}
		lines = append(lines, styledLine{text: "┃"})
		return lines, row + 1, col + left
	case inputRules:
		rule := styledLine{text: strings.Repeat("─", w), sgr: "2"}
		lines = append(lines, rule)
		for _, b := range body {
			lines = append(lines, styledLine{text: truncate(b, content), sgr: sgr})
		}
		lines = append(lines, rule)
		return lines, row + 1, col
	case inputAider:
		lines = append(lines, styledLine{text: strings.Repeat("─", w), sgr: "2"})
		for _, b := range body {
			lines = append(lines, styledLine{text: truncate(b, content), sgr: "32"})
		}
		return lines, row + 1, col
	default: // inputPlain
		for _, b := range body {
			lines = append(lines, styledLine{text: truncate(b, content), sgr: sgr})
		}
		return lines, row, col
	}
}

// renderAsk draws a permission prompt; row and col place the cursor.
func renderAsk(p *persona, a *askPrompt, w int) (lines []styledLine, row, col int) {
	s := p.ask
	cmd := fmt.Sprintf(s.cmdFmt, a.command)
	if s.inline != "" {
		lines = plain(truncate(cmd, w), truncate(s.inline, w))
		return lines, 1, min(runeLen(s.inline), w-1)
	}
	var body []string
	if s.title != "" {
		title := s.title
		if s.tool != "" {
			title += " · " + s.tool
		}
		body = append(body, title, "", cmd, "")
		if s.question != "" {
			body = append(body, s.question)
		}
	} else {
		body = append(body, s.question, cmd, "")
	}
	selRow := 0
	for i, o := range s.options {
		mark := strings.Repeat(" ", runeLen(s.selector))
		if i == a.selected {
			mark = s.selector
			selRow = len(body)
		}
		num := ""
		if s.numbered {
			num = fmt.Sprintf("%d. ", i+1)
		}
		body = append(body, mark+" "+num+o)
	}
	if s.footer != "" {
		body = append(body, "", s.footer)
	}
	if s.boxed {
		inner := w - 4
		lines = append(lines, styledLine{text: "╭" + strings.Repeat("─", w-2) + "╮", sgr: "33"})
		for _, b := range body {
			lines = append(lines, styledLine{text: "│ " + pad(truncate(b, inner), inner) + " │"})
		}
		lines = append(lines, styledLine{text: "╰" + strings.Repeat("─", w-2) + "╯", sgr: "33"})
		return lines, selRow + 1, 2
	}
	lines = append(lines, styledLine{text: strings.Repeat("─", w), sgr: "2"})
	for _, b := range body {
		lines = append(lines, styledLine{text: truncate(b, w)})
	}
	return lines, selRow + 1, 0
}

// terminal writes frames to the real terminal, skipping unchanged ones.
// A frame overwrites the previous one line by line (no clear screen), so a
// reader of the pane never sees a blank intermediate state.
type terminal struct {
	out  io.Writer
	last string
	rows int // lines of the last frame
}

func (t *terminal) draw(f frame) {
	var b strings.Builder
	b.WriteString("\x1b[?25l\x1b[H")
	for i, l := range f.lines {
		if l.sgr != "" {
			b.WriteString("\x1b[" + l.sgr + "m" + l.text + "\x1b[0m")
		} else {
			b.WriteString(l.text)
		}
		if runeLen(l.text) < f.width {
			// Not after a full-width line: some terminals would erase its last cell.
			b.WriteString("\x1b[K")
		}
		if i < len(f.lines)-1 {
			b.WriteString("\r\n")
		}
	}
	b.WriteString("\x1b[J")
	fmt.Fprintf(&b, "\x1b[%d;%dH", f.cursorRow+1, f.cursorCol+1)
	if f.showCursor {
		b.WriteString("\x1b[?25h")
	}
	s := b.String()
	if s == t.last {
		return
	}
	t.last, t.rows = s, len(f.lines)
	_, _ = io.WriteString(t.out, s)
}

// invalidate forces the next draw (after a resize).
func (t *terminal) invalidate() { t.last = "" }

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if runeLen(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func pad(s string, n int) string {
	if l := runeLen(s); l < n {
		return s + strings.Repeat(" ", n-l)
	}
	return s
}

// wrap breaks s into lines of at most n runes, at spaces where possible.
func wrap(s string, n int) []string {
	var out []string
	for _, logical := range strings.Split(s, "\n") {
		r := []rune(logical)
		for len(r) > n {
			cut := n
			for i := n; i > n/2; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			out = append(out, string(r[:cut]))
			r = r[cut:]
			if len(r) > 0 && r[0] == ' ' && cut != n {
				r = r[1:]
			}
		}
		out = append(out, string(r))
	}
	return out
}

// hardWrap breaks s every n runes, keeping every character (the input line
// must show exactly what was typed).
func hardWrap(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return []string{""}
	}
	var out []string
	for len(r) > n {
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return append(out, string(r))
}

// summary is the first non-blank line of a prompt, shortened.
func summary(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return truncate(l, 60)
		}
	}
	return ""
}

// displayPath shortens the home directory to ~.
func displayPath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "~/" + rel
	}
	return p
}
