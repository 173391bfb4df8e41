// Package ntfytest plays a ntfy server on loopback for tests: the JSON
// publish at its root, a plain POST to /<topic> (what a notice's button
// does), and each topic's JSON stream at /<topic>/json with since=<id>
// or since=<unix time>. It keeps every message, whole.
package ntfytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/ntfy"
)

// Server is the fake server.
type Server struct {
	*httptest.Server

	mu   sync.Mutex
	msgs []Published
	// Auth are the Authorization headers of every request, in order.
	Auth []string
	// Streams counts the streams opened.
	Streams int
	// Sinces are the since= of each stream, in order.
	Sinces []string
	// FailNext answers that many next requests with a 500.
	FailNext int
	wake     chan struct{}
}

// Published is one message a topic holds: as a stream hands it out,
// with the whole JSON publish that made it (Message), if it was one.
type Published struct {
	ntfy.Event
	Full ntfy.Message
}

// New starts a server; Close stops it.
func New() *Server {
	s := &Server{wake: make(chan struct{})}
	s.Server = httptest.NewServer(s)
	return s
}

// Messages are the messages of topic, in order.
func (s *Server) Messages(topic string) []Published {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Published
	for _, m := range s.msgs {
		if m.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// StreamsOpen is how many streams were opened so far.
func (s *Server) StreamsOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Streams
}

// Publish adds a message to topic as a plain POST to /<topic> would.
func (s *Server) Publish(topic, body string) {
	s.add(Published{Event: ntfy.Event{Topic: topic, Message: body}})
}

// PublishAt is Publish of a message sent at the given time.
func (s *Server) PublishAt(topic, body string, at time.Time) {
	s.add(Published{Event: ntfy.Event{Topic: topic, Message: body, Time: at.Unix()}})
}

func (s *Server) add(p Published) {
	s.mu.Lock()
	p.ID = fmt.Sprintf("m%05d", len(s.msgs)+1)
	if p.Time == 0 {
		p.Time = time.Now().Unix()
	}
	p.Event.Event = "message"
	s.msgs = append(s.msgs, p)
	wake := s.wake
	s.wake = make(chan struct{})
	s.mu.Unlock()
	close(wake)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.Auth = append(s.Auth, r.Header.Get("Authorization"))
	if s.FailNext > 0 {
		s.FailNext--
		s.mu.Unlock()
		http.Error(w, `{"code":50001,"http":500,"error":"down"}`, 500)
		return
	}
	s.mu.Unlock()
	path := strings.Trim(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "":
		var m ntfy.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Topic == "" {
			http.Error(w, `{"code":40001,"http":400,"error":"bad JSON"}`, 400)
			return
		}
		s.add(Published{Event: ntfy.Event{Topic: m.Topic, Message: m.Message}, Full: m})
		_, _ = w.Write([]byte(`{"id":"x","event":"message"}`))
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && !strings.Contains(path, "/"):
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		s.Publish(path, string(body))
		_, _ = w.Write([]byte(`{"id":"x","event":"message"}`))
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/json"):
		s.stream(w, r, strings.TrimSuffix(path, "/json"))
	default:
		http.NotFound(w, r)
	}
}

// stream serves topic's JSON stream: an open event, what came after
// since, then each new message as it comes, and a keepalive now and then.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, topic string) {
	since := r.URL.Query().Get("since")
	s.mu.Lock()
	s.Streams++
	s.Sinces = append(s.Sinces, since)
	next := len(s.msgs) // without since: only new messages
	if since != "" {
		next = 0
		if t, err := strconv.ParseInt(since, 10, 64); err == nil {
			for next < len(s.msgs) && s.msgs[next].Time < t {
				next++
			}
		} else {
			for i, m := range s.msgs {
				if m.ID == since {
					next = i + 1
				}
			}
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-ndjson")
	fl := w.(http.Flusher)
	enc := json.NewEncoder(w)
	_ = enc.Encode(ntfy.Event{ID: "open", Time: time.Now().Unix(), Event: "open", Topic: topic})
	fl.Flush()
	for {
		s.mu.Lock()
		var out []ntfy.Event
		for ; next < len(s.msgs); next++ {
			if s.msgs[next].Topic == topic {
				out = append(out, s.msgs[next].Event)
			}
		}
		wake := s.wake
		s.mu.Unlock()
		for _, ev := range out {
			if enc.Encode(ev) != nil {
				return
			}
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-wake:
		case <-time.After(5 * time.Second):
			_ = enc.Encode(ntfy.Event{ID: "ka", Time: time.Now().Unix(), Event: "keepalive", Topic: topic})
			fl.Flush()
		}
	}
}

// Close ends every stream (a subscriber that is still following one,
// like owt's monitor, would hold it open) and stops the server.
func (s *Server) Close() {
	_ = s.Listener.Close() // no new stream: a subscriber reconnects
	s.Server.CloseClientConnections()
	s.Server.Close()
}
