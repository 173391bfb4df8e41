package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// logLimit is the size above which owt.log is moved to owt.log.1 when it is
// next opened, so the log of a long-lived monitor cannot grow without end.
const logLimit = 1 << 20

// LogPath is owt's log: the lines of processes that have no terminal to
// write to (owt hook, owt monitor), written through package owtlog.
func LogPath() string { return filepath.Join(Dir(), "owt.log") }

// OpenLog opens the log for appending, rotating it first when it is large.
func OpenLog() (*os.File, error) {
	path := LogPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > logLimit {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// logger writes Logf's entries; package owtlog sets it (SetLogger), so
// every line of owt.log goes through one logger, in the chosen format.
var logger func(who, msg string)

// SetLogger makes fn the writer of Logf's entries.
func SetLogger(fn func(who, msg string)) { logger = fn }

// Logf appends one entry to owt's log through the logger package owtlog
// set, about no repository or agent in particular (its event is who).
// owtlog.Logf is the one to use: it says what an entry is about. Without
// a logger (a program that does not link owtlog) it writes the text line.
// Failing to log is never an error for the caller.
func Logf(who, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if logger != nil {
		logger(who, msg)
		return
	}
	f, err := OpenLog()
	if err != nil {
		return
	}
	defer f.Close()
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	_, _ = fmt.Fprintf(f, "%s [%d] %s: %s\n", time.Now().Format("2006-01-02T15:04:05.000Z07:00"), os.Getpid(), who, msg)
}

// LogWriter appends to owt's log and follows it: before each write it
// makes sure it still has the file LogPath names open (someone may have
// removed or moved it) and that the file has not outgrown logLimit (then
// OpenLog moves it aside). A long-lived process (the monitor) logs through
// it, so its lines never go to a file nobody can see.
type LogWriter struct {
	mu sync.Mutex
	f  *os.File
}

// Write appends p to the log file LogPath names now.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil || !w.current() {
		if w.f != nil {
			_ = w.f.Close()
		}
		f, err := OpenLog()
		if err != nil {
			w.f = nil
			return 0, err
		}
		w.f = f
	}
	return w.f.Write(p)
}

// current reports whether the open file is still the log, and small enough.
func (w *LogWriter) current() bool {
	open, err1 := w.f.Stat()
	named, err2 := os.Stat(LogPath())
	return err1 == nil && err2 == nil && os.SameFile(open, named) && named.Size() <= logLimit
}

// IsLog reports whether f is owt's log file (a daemon's stderr is).
func IsLog(f *os.File) bool {
	open, err1 := f.Stat()
	named, err2 := os.Stat(LogPath())
	return err1 == nil && err2 == nil && os.SameFile(open, named)
}
