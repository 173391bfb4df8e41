package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// logLimit is the size above which owt.log is moved to owt.log.1 when it is
// next opened, so the log of a long-lived monitor cannot grow without end.
const logLimit = 1 << 20

// LogPath is owt's log: the lines of processes that have no terminal to
// write to (owt hook, owt monitor).
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

// Logf appends one line to owt's log: time, pid, who, message. Failing to
// log is never an error for the caller.
func Logf(who, format string, args ...any) {
	f, err := OpenLog()
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(LogLine(who, fmt.Sprintf(format, args...)))
}

// LogLine formats one log line; line breaks in msg are flattened so every
// entry stays one line.
func LogLine(who, msg string) string {
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	return fmt.Sprintf("%s [%d] %s: %s\n", time.Now().Format("2006-01-02T15:04:05.000Z07:00"), os.Getpid(), who, msg)
}
