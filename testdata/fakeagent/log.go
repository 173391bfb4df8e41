package main

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"time"
)

// eventLog appends one JSON object per line to $OWT_FAKE_LOG. Several fake
// agents may share a log: every line carries the pid, and "agent" (the
// OWT_NAME of the session) when set. A nil *eventLog logs nothing.
type eventLog struct {
	mu    sync.Mutex
	f     *os.File
	pid   int
	agent string
}

func openEventLog(path string) (*eventLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &eventLog{f: f, pid: os.Getpid(), agent: os.Getenv("OWT_NAME")}, nil
}

// event writes {"event":name, kv..., "time":..., "pid":...}; kv alternates
// keys and values, and keeps its order in the line.
func (l *eventLog) event(name string, kv ...any) {
	if l == nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"event":`)
	writeJSON(&b, name)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		b.WriteByte(',')
		writeJSON(&b, k)
		b.WriteByte(':')
		writeJSON(&b, kv[i+1])
	}
	b.WriteString(`,"time":`)
	writeJSON(&b, time.Now().Format(time.RFC3339Nano))
	b.WriteString(`,"pid":`)
	writeJSON(&b, l.pid)
	if l.agent != "" {
		b.WriteString(`,"agent":`)
		writeJSON(&b, l.agent)
	}
	b.WriteString("}\n")

	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.f.Write(b.Bytes()) // one write per line: O_APPEND keeps lines whole
}

func (l *eventLog) close() {
	if l != nil {
		_ = l.f.Close()
	}
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString(`null`)
		return
	}
	b.Truncate(b.Len() - 1) // Encode adds a newline
}
