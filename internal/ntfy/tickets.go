package ntfy

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Ticket is what a reply button may do: answer the prompt Prompt of the
// agent Agent in Repo with one of Keys. Prompt names the prompt as it
// stood when the notice went out (the waiting status's start and the
// dialog's text), so a reply to an earlier prompt is told apart.
type Ticket struct {
	Repo, Agent string
	Prompt      string
	Keys        []string
	Server      Server
	Expires     time.Time
}

// Errors of Tickets.Use: why a reply is refused.
var (
	ErrUnknownTicket = errors.New("owt knows no such notice (it was sent before owt's monitor last started, or never)")
	ErrTicketUsed    = errors.New("that notice was answered already")
	ErrTicketExpired = errors.New("that notice is too old to answer")
	ErrNotAChoice    = errors.New("that is none of the prompt's choices")
)

// TicketLife is how long a notice's buttons can answer.
const TicketLife = 24 * time.Hour

// Tickets are the notices' tickets by token. Each token answers once:
// Use marks it used before anything is typed.
type Tickets struct {
	mu  sync.Mutex
	m   map[string]*held
	Now func() time.Time // nil is time.Now
	// OnIssue, when set, is told each ticket issued (outside the lock):
	// the monitor follows its server's reply topic from then on.
	OnIssue func(Ticket)
}

type held struct {
	t    Ticket
	used bool
}

func (ts *Tickets) now() time.Time {
	if ts.Now != nil {
		return ts.Now()
	}
	return time.Now()
}

// Issue keeps t under a new random token and returns it.
func (ts *Tickets) Issue(t Ticket) (string, error) {
	var b [15]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
	ts.mu.Lock()
	if ts.m == nil {
		ts.m = map[string]*held{}
	}
	now := ts.now()
	for k, h := range ts.m {
		if now.After(h.t.Expires) {
			delete(ts.m, k)
		}
	}
	if t.Expires.IsZero() {
		t.Expires = now.Add(TicketLife)
	}
	ts.m[token] = &held{t: t}
	ts.mu.Unlock()
	if ts.OnIssue != nil {
		ts.OnIssue(t)
	}
	return token, nil
}

// Use spends token for the choice key: the ticket, or why the reply is
// refused. A token is spent by its first use that names a choice of its
// prompt, whatever happens to the answer after (never twice).
func (ts *Tickets) Use(token, key string) (Ticket, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	h, ok := ts.m[token]
	switch {
	case !ok:
		return Ticket{}, ErrUnknownTicket
	case h.used:
		return h.t, ErrTicketUsed
	case ts.now().After(h.t.Expires):
		return h.t, ErrTicketExpired
	case !slices.Contains(h.t.Keys, key):
		return h.t, ErrNotAChoice
	}
	h.used = true
	return h.t, nil
}

// replyRE is a reply's body: a token and one key.
var replyRE = regexp.MustCompile(`^([a-z2-7]{24}) ([0-9A-Za-z])$`)

// ReplyBody is what a button publishes: the token and the choice's key.
func ReplyBody(token, key string) string { return token + " " + key }

// ParseReply reads a reply's body; ok is false for anything else
// (another message on the topic, a hand-typed line).
func ParseReply(body string) (token, key string, ok bool) {
	m := replyRE.FindStringSubmatch(strings.TrimSpace(body))
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
