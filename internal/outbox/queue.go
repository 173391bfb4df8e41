// Package outbox keeps the messages owt owes an agent (a nudge, a request
// to commit, failing checks): queued per agent on disk, delivered through
// owt send's path only when the agent is idle and no user looks at its
// pane, several at once as one paste, and settled as delivered or
// undeliverable with the reason, or withdrawn untyped when its cause went
// away. Typing the messages into panes is the courier's, in package send.
package outbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/state"
)

// Version is the schema version written into every outbox file.
const Version = 1

// State is where a message is.
type State string

// Message states.
const (
	Queued        State = "queued"        // waits for the agent to be idle and unwatched
	Delivered     State = "delivered"     // the agent took it (its Enter took)
	Undeliverable State = "undeliverable" // owt tried and could not: Why says why
	Withdrawn     State = "withdrawn"     // taken back untyped: its cause went away (Why)
)

// Agent names an agent: the worktree called Name of the repository at
// Repo, in its life Life (state.Record.Life): a later agent given the same
// name has an outbox of its own, and never gets this one's messages.
type Agent struct {
	Repo string `json:"repo"`
	Name string `json:"name"`
	Life string `json:"life,omitempty"`
}

// Of is the agent of rec.
func Of(rec *state.Record) Agent { return Agent{Repo: rec.Repo, Name: rec.Name, Life: rec.Life} }

// Since is when the messages in rec's outbox file begin to be its. A
// life's file is its own from the start (zero time). A record from
// before lives shares its name's file with the agents of that name an
// older owt deleted: what was queued before it was made was theirs —
// unless it was rebuilt after its state file was lost, when CreatedAt is
// the rebuild and its own mail may be older.
func Since(rec *state.Record) time.Time {
	if rec.Life != "" || rec.Recovered {
		return time.Time{}
	}
	return rec.CreatedAt
}

// Message is one text owed to an agent. Kind and Key identify it: the
// same (agent, kind, key) is queued once, whatever its state.
type Message struct {
	Kind string `json:"kind"`
	Key  string `json:"key"`
	Text string `json:"text"`
	// From says who owes it, for a user reading the file ("run g, task a").
	From     string    `json:"from,omitempty"`
	State    State     `json:"state"`
	QueuedAt time.Time `json:"queued_at"`
	// SentAt is when its text began to be typed (delivered or not); set
	// on a queued message while the courier types it (Take), which can no
	// longer be withdrawn then.
	SentAt time.Time `json:"sent_at,omitzero"`
	// Why says why it is undeliverable, or, while queued, what holds it
	// ("the user is on its pane").
	Why string `json:"why,omitempty"`
	// ReadAt is when the agent read it with check_messages (messages
	// from peers only).
	ReadAt time.Time `json:"read_at,omitzero"`
}

// file is one agent's outbox on disk.
type file struct {
	Version  int        `json:"version"`
	Agent    Agent      `json:"agent"`
	Messages []*Message `json:"messages"`
}

// Box is the outbox directory: one file per agent, written under an
// exclusive flock on a sibling lock file, atomically, mode 0600.
type Box struct{ Dir string }

// Default is $XDG_STATE_HOME/owt/outbox.
func Default() Box { return Box{Dir: filepath.Join(state.Dir(), "outbox")} }

// path is the file of agent a: named after the worktree, with a hash of
// the repo, name and life so equal names in two repos, or two lives of
// one name, do not meet (a record from before lives has the name's file).
func (b Box) path(a Agent) string {
	key := state.Key{Repo: a.Repo, Name: a.Name}.String()
	if a.Life != "" {
		key += "\x00" + a.Life
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(b.Dir, safeName(a.Name)+"-"+hex.EncodeToString(sum[:])[:12]+".json")
}

func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "agent"
	}
	return s
}

// Enqueue queues m for agent a unless a message of the same kind and key
// is there already (queued, delivered or undeliverable); it returns the
// message as the outbox holds it and whether it was added now.
func (b Box) Enqueue(a Agent, m Message, now time.Time) (Message, bool, error) {
	if m.Kind == "" || m.Key == "" {
		return Message{}, false, fmt.Errorf("outbox: a message needs a kind and a key")
	}
	var got Message
	added := false
	err := b.update(a, func(f *file) bool {
		if old := f.find(m.Kind, m.Key); old != nil {
			got = *old
			return false
		}
		m.State, m.QueuedAt, m.SentAt, m.Why = Queued, now, time.Time{}, ""
		f.Messages = append(f.Messages, &m)
		got, added = m, true
		return true
	})
	return got, added, err
}

// Lookup is the message of kind and key queued for a, if any.
func (b Box) Lookup(a Agent, kind, key string) (Message, bool, error) {
	f, err := b.read(a)
	if err != nil {
		return Message{}, false, err
	}
	if m := f.find(kind, key); m != nil {
		return *m, true, nil
	}
	return Message{}, false, nil
}

// Queued are a's messages still to deliver, oldest first.
func (b Box) Queued(a Agent) ([]Message, error) {
	f, err := b.read(a)
	if err != nil {
		return nil, err
	}
	return f.queued(), nil
}

// Take is a's queued messages for the courier to type now: each is
// marked as being typed (SentAt) under the lock, so Withdraw no longer
// takes it back. The courier settles them, or gives back those it did
// not type (Release). A message marked so by a courier that died stays
// marked: it may have been typed, so it is never withdrawn.
func (b Box) Take(a Agent, now time.Time) ([]Message, error) {
	var out []Message
	err := b.update(a, func(f *file) bool {
		for _, m := range f.Messages {
			if m.State == Queued {
				m.SentAt = now
				out = append(out, *m)
			}
		}
		return len(out) > 0
	})
	return out, err
}

// Release gives back the messages of a named by msgs that the courier
// took and did not type: they wait again, and can be withdrawn.
func (b Box) Release(a Agent, msgs []Message) error {
	return b.update(a, func(f *file) bool {
		changed := false
		for _, m := range msgs {
			if cur := f.find(m.Kind, m.Key); cur != nil && cur.State == Queued && !cur.SentAt.IsZero() {
				cur.SentAt, changed = time.Time{}, true
			}
		}
		return changed
	})
}

// Withdraw takes back a's message of kind and key if it is still queued
// and not being typed (Take): it is settled as withdrawn, why saying why,
// and is never typed. It reports whether it was withdrawn; false means it
// was delivered, undeliverable, is being typed, or is not there.
func (b Box) Withdraw(a Agent, kind, key, why string) (bool, error) {
	done := false
	err := b.update(a, func(f *file) bool {
		m := f.find(kind, key)
		if m == nil || m.State != Queued || !m.SentAt.IsZero() {
			return false
		}
		m.State, m.Why, done = Withdrawn, why, true
		return true
	})
	return done && err == nil, err
}

// Join is the text of msgs as one paste: each message once, in order,
// separated by a blank line.
func Join(msgs []Message) string {
	texts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if t := strings.TrimSpace(m.Text); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n\n")
}

// Settle marks the queued messages of a named by msgs (kind and key) as
// delivered or undeliverable, sent at sentAt; why says why not.
func (b Box) Settle(a Agent, msgs []Message, to State, sentAt time.Time, why string) error {
	return b.update(a, func(f *file) bool {
		changed := false
		for _, m := range msgs {
			if cur := f.find(m.Kind, m.Key); cur != nil && cur.State == Queued {
				cur.State, cur.SentAt, cur.Why = to, sentAt, why
				changed = true
			}
		}
		return changed
	})
}

// Hold notes on a's queued messages what keeps them (why), or clears it
// (""); the file is written only when that changes.
func (b Box) Hold(a Agent, why string) error {
	return b.update(a, func(f *file) bool {
		changed := false
		for _, m := range f.Messages {
			if m.State == Queued && m.Why != why {
				m.Why, changed = why, true
			}
		}
		return changed
	})
}

func (f *file) find(kind, key string) *Message {
	for _, m := range f.Messages {
		if m.Kind == kind && m.Key == key {
			return m
		}
	}
	return nil
}

func (f *file) queued() []Message {
	var out []Message
	for _, m := range f.Messages {
		if m.State == Queued {
			out = append(out, *m)
		}
	}
	return out
}

// errCorrupt marks an outbox file that is not one.
var errCorrupt = errors.New("is corrupt")

// read is a's file as it is, without locking (every write is a rename,
// so a read sees a whole file); a missing file is an empty outbox, and a
// corrupt one reads as empty (the next change sets it aside), so one bad
// file stops nothing.
func (b Box) read(a Agent) (*file, error) {
	f, err := readFile(b.path(a), a)
	if errors.Is(err, errCorrupt) {
		return &file{Version: Version, Agent: a}, nil
	}
	return f, err
}

func readFile(path string, a Agent) (*file, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: Version, Agent: a}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox %s: %w", path, err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("outbox %s %w: %v", path, errCorrupt, err)
	}
	if f.Version > Version {
		return nil, fmt.Errorf("outbox %s was written by a newer owt (schema %d; this owt knows %d): upgrade owt", path, f.Version, Version)
	}
	return &f, nil
}

// update changes a's file under its lock: a fresh read, fn, and a write
// when fn reports a change.
func (b Box) update(a Agent, fn func(*file) bool) error {
	path := b.path(a)
	doc := state.JSONFile[file]{
		Path: path, LockPath: strings.TrimSuffix(path, ".json") + ".lock", What: "outbox of " + a.Name,
		Load: func() (*file, error) { return readFile(path, a) },
		Corrupt: func(err error) (*file, error) {
			if !errors.Is(err, errCorrupt) {
				return nil, err
			}
			// Set aside (as a corrupt state file is) and start afresh: its
			// messages are lost to owt, not to the user, who can read it.
			if _, rerr := atomicfile.SetAside(path); rerr != nil {
				return nil, fmt.Errorf("%v; set it aside: %w", err, rerr)
			}
			return &file{Version: Version, Agent: a}, nil
		},
	}
	return doc.Update(func(f *file) (bool, error) {
		if !fn(f) {
			return false, nil
		}
		f.Version, f.Agent = Version, a
		return true, nil
	})
}

// Pending lists the agents with a queued message, from every file of the
// box.
func (b Box) Pending() ([]Agent, error) {
	paths, err := filepath.Glob(filepath.Join(b.Dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Agent
	var errs []error
	for _, p := range paths {
		f, err := readFile(p, Agent{})
		if err != nil {
			if errors.Is(err, errCorrupt) {
				// Said once, then set aside for the user to read: not
				// again on every tick.
				if _, rerr := atomicfile.SetAside(p); rerr == nil {
					err = fmt.Errorf("%w (set aside)", err)
				}
			}
			errs = append(errs, err) // one bad file holds no other agent's messages
			continue
		}
		if len(f.queued()) > 0 {
			out = append(out, f.Agent)
		}
	}
	return out, errors.Join(errs...)
}

// HeldByUser is why a queued message waits while a client is on the
// agent's pane: what owt types there would mix with what the user types.
const HeldByUser = "the user is on its pane"

// Ready reports whether an agent can take a message now: its turn is
// over (idle), it waits for nobody, it lives and has started.
func Ready(rec *state.Record) bool {
	return rec.Status == state.Idle && !rec.NoAgent && rec.Pane != "" && !rec.Creating
}

// ForDeleted is why a message queued for an agent that was deleted is
// undeliverable (Abandon): it never reaches a later agent of its name.
const ForDeleted = "the agent it was for was deleted"

// Abandon settles every queued message of a as undeliverable, why saying
// why (its agent was deleted): none waits for a later agent of the name.
// It reports how many there were.
func (b Box) Abandon(a Agent, why string) (int, error) {
	return b.abandonIf(a, why, func(*Message) bool { return true })
}

// AbandonBefore settles a's queued messages queued before since as
// undeliverable, why saying why. An older owt kept one file per name, so
// a record from before lives (no Life) shares it with the agents of that
// name it deleted: what was queued before this one was made was theirs.
func (b Box) AbandonBefore(a Agent, since time.Time, why string) (int, error) {
	return b.abandonIf(a, why, func(m *Message) bool { return m.QueuedAt.Before(since) })
}

// abandonIf settles a's queued messages that match as undeliverable, why
// saying why, and reports how many there were.
func (b Box) abandonIf(a Agent, why string, match func(*Message) bool) (int, error) {
	n := 0
	err := b.update(a, func(f *file) bool {
		for _, m := range f.Messages {
			if m.State == Queued && match(m) {
				m.State, m.Why = Undeliverable, why
				n++
			}
		}
		return n > 0
	})
	return n, err
}

// Mailbox is one agent's outbox as it is on disk.
type Mailbox struct {
	Agent    Agent
	Messages []Message
}

// All are the outboxes of repo's agents, every life's (those of agents
// deleted since too), with their messages of kind, oldest first. A file
// that cannot be read is left out.
func (b Box) All(repo, kind string) ([]Mailbox, error) {
	paths, err := filepath.Glob(filepath.Join(b.Dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Mailbox
	for _, p := range paths {
		f, err := readFile(p, Agent{})
		if err != nil || f.Agent.Repo != repo {
			continue
		}
		mb := Mailbox{Agent: f.Agent}
		for _, m := range f.Messages {
			if m.Kind == kind {
				mb.Messages = append(mb.Messages, *m)
			}
		}
		out = append(out, mb)
	}
	return out, nil
}
