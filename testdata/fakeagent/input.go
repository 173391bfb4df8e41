package main

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

type keyKind int

const (
	keyRune      keyKind = iota
	keyEnter             // CR: submit
	keyNewline           // LF (Ctrl-J) or Alt-Enter: a newline in the input
	keyBackspace         // DEL or BS
	keyCtrlC
	keyCtrlD
	keyCtrlZ
	keyCtrlU
	keyEsc // a lone ESC
	keyUp
	keyDown
	keyPaste // a bracketed paste, text holds its content
	keyOther // anything else, ignored
)

type key struct {
	kind keyKind
	r    rune
	text string
}

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// keyDecoder turns raw terminal input into keys. Input can arrive split at
// any byte; an incomplete sequence stays buffered until more arrives or
// flush is called after a pause (which is how a lone Esc is told apart
// from the start of an escape sequence).
type keyDecoder struct {
	buf     []byte
	inPaste bool
	paste   []byte
}

func (d *keyDecoder) feed(b []byte) []key {
	d.buf = append(d.buf, b...)
	return d.decode()
}

// waiting reports whether undecoded bytes are held back outside a paste.
func (d *keyDecoder) waiting() bool { return !d.inPaste && len(d.buf) > 0 }

// flush decodes what is held back after a pause: a lone ESC becomes Esc,
// any other incomplete sequence is dropped.
func (d *keyDecoder) flush() []key {
	if d.inPaste || len(d.buf) == 0 {
		return nil
	}
	var keys []key
	if d.buf[0] == 0x1b && len(d.buf) == 1 {
		keys = append(keys, key{kind: keyEsc})
	}
	d.buf = d.buf[:0]
	return keys
}

func (d *keyDecoder) decode() []key {
	var keys []key
	for len(d.buf) > 0 {
		if d.inPaste {
			i := bytes.Index(d.buf, pasteEnd)
			if i < 0 {
				keep := partialSuffix(d.buf, pasteEnd)
				d.paste = append(d.paste, d.buf[:len(d.buf)-keep]...)
				d.buf = append(d.buf[:0], d.buf[len(d.buf)-keep:]...)
				return keys
			}
			d.paste = append(d.paste, d.buf[:i]...)
			d.buf = d.buf[i+len(pasteEnd):]
			d.inPaste = false
			keys = append(keys, key{kind: keyPaste, text: normalizeNewlines(string(d.paste))})
			d.paste = nil
			continue
		}
		c := d.buf[0]
		switch {
		case c == 0x1b:
			k, n := decodeEscape(d.buf)
			if n == 0 {
				return keys // incomplete
			}
			d.buf = d.buf[n:]
			if bytes.Equal(k.seq, pasteStart) {
				d.inPaste = true
				continue
			}
			keys = append(keys, k.key)
		case c == '\r':
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyEnter})
		case c == '\n':
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyNewline})
		case c == 0x7f || c == 0x08:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyBackspace})
		case c == 0x03:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyCtrlC})
		case c == 0x04:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyCtrlD})
		case c == 0x1a:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyCtrlZ})
		case c == 0x15:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyCtrlU})
		case c == '\t':
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyRune, r: '\t'})
		case c < 0x20:
			d.buf = d.buf[1:]
			keys = append(keys, key{kind: keyOther})
		default:
			if !utf8.FullRune(d.buf) {
				return keys
			}
			r, n := utf8.DecodeRune(d.buf)
			d.buf = d.buf[n:]
			if r == utf8.RuneError && n == 1 {
				keys = append(keys, key{kind: keyOther})
				continue
			}
			keys = append(keys, key{kind: keyRune, r: r})
		}
	}
	return keys
}

type escKey struct {
	key key
	seq []byte
}

// decodeEscape decodes the sequence at the start of b (b[0] is ESC) and
// returns how many bytes it used, 0 if it is incomplete.
func decodeEscape(b []byte) (escKey, int) {
	if len(b) < 2 {
		return escKey{}, 0
	}
	switch b[1] {
	case '[':
		j := 2
		for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
			j++
		}
		if j == len(b) {
			return escKey{}, 0
		}
		seq := b[:j+1]
		k := key{kind: keyOther}
		switch string(seq) {
		case "\x1b[A":
			k.kind = keyUp
		case "\x1b[B":
			k.kind = keyDown
		}
		return escKey{key: k, seq: seq}, j + 1
	case 'O':
		if len(b) < 3 {
			return escKey{}, 0
		}
		k := key{kind: keyOther}
		switch b[2] {
		case 'A':
			k.kind = keyUp
		case 'B':
			k.kind = keyDown
		}
		return escKey{key: k, seq: b[:3]}, 3
	case '\r':
		return escKey{key: key{kind: keyNewline}, seq: b[:2]}, 2
	default:
		// ESC followed by anything else: Esc pressed, then another key.
		return escKey{key: key{kind: keyEsc}, seq: b[:1]}, 1
	}
}

// partialSuffix is the length of the longest suffix of b that is a proper
// prefix of sep (bytes that may be the start of sep split across reads).
func partialSuffix(b, sep []byte) int {
	for n := min(len(sep)-1, len(b)); n > 0; n-- {
		if bytes.HasSuffix(b, sep[:n]) {
			return n
		}
	}
	return 0
}

// normalizeNewlines turns CRLF and CR into LF: tmux paste-buffer sends
// line breaks as CR.
func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
