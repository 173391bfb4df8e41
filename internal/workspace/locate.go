package workspace

import (
	"errors"
	"os"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Place says where a record's tmux session is, as far as owt can prove.
type Place int

const (
	// Gone: no server owt can reach holds the session the record names.
	// Only then may owt recreate it or call the agent gone.
	Gone Place = iota
	// Here: the session is on the server owt is talking to.
	Here
	// Elsewhere: the session was made on another tmux server, which still
	// runs. owt shows it and leaves it alone: never recreated, adopted or
	// marked exited from here.
	Elsewhere
)

func (p Place) String() string {
	switch p {
	case Here:
		return "here"
	case Elsewhere:
		return "other-server"
	}
	return "gone"
}

// Where is a record's session as located by a Locator.
type Where struct {
	Place     Place
	SessionID string // the live session's id, on the server of Place
	Socket    string // the server's socket, for Elsewhere
}

// Locator finds records' sessions. A session is a record's only when the
// server run (host, pid, start time) and the session id both match what
// the record says: names and @owt-* options can be set by anyone, and
// tmux hands out the same $N again after a restart.
type Locator struct {
	tm       *tmux.Client
	socket   string
	identity string          // this server's identity; "" when none runs
	ids      map[string]bool // session ids on this server
	byName   map[string]string
	others   map[string]string // socket → identity of that server ("" = not running)
}

// NewLocator lists this server's sessions (one tmux call, or none when the
// caller already has them) and is ready to locate many records.
func NewLocator(tm *tmux.Client, sessions []tmux.Session) *Locator {
	l := &Locator{tm: tm, socket: tm.ServerSocket(), ids: map[string]bool{}, byName: map[string]string{}, others: map[string]string{}}
	for _, s := range sessions {
		l.identity = s.Server
		l.ids[s.ID] = true
		l.byName[s.Name] = s.ID
	}
	return l
}

// ListLocator is NewLocator with this server's sessions listed now.
func ListLocator(tm *tmux.Client) (*Locator, error) {
	ss, err := tm.Sessions()
	if err != nil {
		return nil, err
	}
	return NewLocator(tm, ss), nil
}

// Locate says where r's session is.
func (l *Locator) Locate(r *state.Record) Where {
	if r.Server == "" {
		// A record from before owt kept server identities, or one whose
		// create has not recorded its session yet: only the name is known.
		if r.SessionID == "" {
			return Where{Place: Gone}
		}
		if id, ok := l.byName[r.Session]; ok && id == r.SessionID {
			return Where{Place: Here, SessionID: id}
		}
		return Where{Place: Gone}
	}
	if l.identity != "" && r.Server == l.identity {
		if l.ids[r.SessionID] {
			return Where{Place: Here, SessionID: r.SessionID}
		}
		return Where{Place: Gone}
	}
	// Made on another server run. If that server still runs (its socket
	// answers with the recorded identity), the session is its business.
	if r.Socket == "" || r.Socket == l.socket && l.identity != "" {
		return Where{Place: Gone} // this socket's server was restarted
	}
	if l.otherIdentity(r.Socket) != r.Server {
		return Where{Place: Gone}
	}
	return Where{Place: Elsewhere, SessionID: r.SessionID, Socket: r.Socket}
}

// otherIdentity asks the server on socket who it is, once per socket.
func (l *Locator) otherIdentity(socket string) string {
	if id, ok := l.others[socket]; ok {
		return id
	}
	id := ""
	if _, err := os.Stat(socket); err == nil {
		if got, err := (&tmux.Client{Bin: l.tm.Bin, Socket: socket}).ServerIdentity(); err == nil {
			id = got
		}
	}
	l.others[socket] = id
	return id
}

// ClientFor is a tmux client talking to the server that holds w's session.
func (l *Locator) ClientFor(w Where) *tmux.Client {
	if w.Place == Elsewhere {
		return &tmux.Client{Bin: l.tm.Bin, Socket: w.Socket}
	}
	return l.tm
}

// Locate says where r's session is, asking tmux now.
func (w *Workspace) Locate(r *state.Record) (Where, error) {
	l, err := ListLocator(w.Tmux)
	if err != nil {
		return Where{}, err
	}
	return l.Locate(r), nil
}

// ErrOtherServer is returned for a record whose session lives on another
// tmux server that still runs.
var ErrOtherServer = errors.New("runs on another tmux server")
