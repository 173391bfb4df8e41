// Package owtlog is the one way owt writes its log, owt.log: the lines of
// processes with no terminal to write to (owt hook, owt monitor, the
// publisher, owt new's hook merging), all through log/slog.
//
// Two formats, chosen by --log-format for one run of owt, else by [log]
// format in the user's config.toml, else text:
//
//	text  "2026-11-28T12:03:04.512+01:00 [4242] monitor: a: idle on screen (was working from hook)"
//	      (the line owt has always written: time, pid, who, message)
//	json  {"time":"…","level":"INFO","msg":"…","repo":"/src/app","agent":"a","event":"status","who":"monitor","pid":4242}
//
// Every JSON line carries time, level, repo, agent and event (empty when
// the entry is about no repository or agent), and who and pid. The format
// is decided when the first line is written, so a run that logs nothing
// (a hook on its hot path) never reads the config.
//
// The config's answer comes from the format source each program's main
// sets (SetFormatSource: config.LogFormat in owt, owt-popup and owt-mcp),
// so that this package does not import the config.
//
// Imports state (the log file's place and rotation).
package owtlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/state"
)

// state.Logf, for callers that name no repository or agent, writes
// through this package too.
func init() {
	state.SetLogger(func(who, msg string) { write(who, slog.LevelInfo, Fields{Event: who}, msg) })
}

// The formats.
const (
	Text = "text"
	JSON = "json"
)

// Fields say what an entry is about: the repository, the agent, and the
// kind of event ("hook", "status", "exited", "notify", …).
type Fields struct {
	Repo, Agent, Event string
}

var (
	mu       sync.Mutex
	override string        // --log-format
	chosen   string        // the format decided on, once
	source   func() string // the user config's format (SetFormatSource)
)

// SetFormatSource makes src the way this process learns the user
// config's [log] format when it writes its first line without
// --log-format: main sets it once, before anything logs. Without one,
// lines are text.
func SetFormatSource(src func() string) {
	mu.Lock()
	defer mu.Unlock()
	source = src
}

// SetFormat makes f the format of every line this process writes (the
// --log-format flag). An unknown format is an error.
func SetFormat(f string) error {
	if f != Text && f != JSON {
		return fmt.Errorf("log format %q is not one of %s, %s", f, Text, JSON)
	}
	mu.Lock()
	defer mu.Unlock()
	override, chosen = f, f
	return nil
}

// Override is the format --log-format set, "" when it set none: what a
// process hands on to the monitor it starts.
func Override() string {
	mu.Lock()
	defer mu.Unlock()
	return override
}

// Format is the format this process writes: --log-format, else the user
// config's [log] format as the format source tells it, else text.
func Format() string {
	mu.Lock()
	defer mu.Unlock()
	if chosen == "" {
		chosen = Text
		if source != nil && source() == JSON {
			chosen = JSON
		}
	}
	return chosen
}

// Logger writes entries to w as who ("monitor", "hook").
type Logger struct {
	who  string
	w    io.Writer
	once sync.Once
	sl   *slog.Logger
}

// New is a logger writing to w as who; the format is decided at its first
// entry.
func New(w io.Writer, who string) *Logger { return &Logger{who: who, w: w} }

func (l *Logger) slog() *slog.Logger {
	l.once.Do(func() {
		var h slog.Handler
		if Format() == JSON {
			h = slog.NewJSONHandler(l.w, &slog.HandlerOptions{Level: slog.LevelDebug})
		} else {
			h = &textHandler{w: l.w}
		}
		l.sl = slog.New(h)
	})
	return l.sl
}

// Log writes one entry.
func (l *Logger) Log(level slog.Level, f Fields, msg string) {
	l.slog().LogAttrs(context.Background(), level, msg,
		slog.String("repo", f.Repo), slog.String("agent", f.Agent), slog.String("event", f.Event),
		slog.String("who", l.who), slog.Int("pid", os.Getpid()))
}

// Infof writes an entry at level INFO.
func (l *Logger) Infof(f Fields, format string, args ...any) {
	l.Log(slog.LevelInfo, f, fmt.Sprintf(format, args...))
}

// Errorf writes an entry at level ERROR.
func (l *Logger) Errorf(f Fields, format string, args ...any) {
	l.Log(slog.LevelError, f, fmt.Sprintf(format, args...))
}

// Logf appends one entry to owt.log, at level INFO; Errorf at ERROR.
// Failing to log is never an error for the caller.
func Logf(who string, f Fields, format string, args ...any) {
	write(who, slog.LevelInfo, f, fmt.Sprintf(format, args...))
}

// Errorf appends one entry at level ERROR to owt.log.
func Errorf(who string, f Fields, format string, args ...any) {
	write(who, slog.LevelError, f, fmt.Sprintf(format, args...))
}

func write(who string, level slog.Level, f Fields, msg string) {
	file, err := state.OpenLog()
	if err != nil {
		return
	}
	defer file.Close()
	New(file, who).Log(level, f, msg)
}

// textHandler writes the text format: one line per entry, time, pid,
// who and the message, line breaks flattened; the fields are not shown
// (the line reads as it always has).
type textHandler struct {
	w     io.Writer
	attrs []slog.Attr
}

func (h *textHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	who, pid := "", int64(os.Getpid())
	read := func(a slog.Attr) bool {
		switch a.Key {
		case "who":
			who = a.Value.String()
		case "pid":
			pid = a.Value.Int64()
		}
		return true
	}
	for _, a := range h.attrs {
		read(a)
	}
	r.Attrs(read)
	_, err := io.WriteString(h.w, TextLine(r.Time, int(pid), who, r.Message))
	return err
}

func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &textHandler{w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *textHandler) WithGroup(string) slog.Handler { return h }

// TextLine is one entry in the text format; line breaks in msg are
// flattened so every entry stays one line.
func TextLine(t time.Time, pid int, who, msg string) string {
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	// An entry may quote anyone's words (an event name from argv, a
	// pane's line): no control character reaches a terminal that reads
	// the log with tail or cat.
	return fmt.Sprintf("%s [%d] %s: %s\n", t.Format("2006-01-02T15:04:05.000Z07:00"), pid, inert(who), inert(msg))
}

// inert writes control characters (ESC, BEL …) as \xNN.
func inert(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 }
