package outbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/state"
)

// KindPeer is the kind of a message one agent sent another (owt mcp's
// send_message). Its From is the sender's worktree name and its Key the
// message id.
const KindPeer = "peer"

// ErrRefused wraps why EnqueueChecked did not queue a message.
var ErrRefused = errors.New("refused")

// EnqueueChecked queues m for a after check, under a's lock, found no
// reason against it in a's messages as they are now (oldest first): a
// check that reads and a queue that writes under one lock, so two senders
// cannot both pass a limit. check's error is returned wrapped in
// ErrRefused, and nothing is queued.
func (b Box) EnqueueChecked(a Agent, m Message, now time.Time, check func([]Message) error) (Message, error) {
	if m.Kind == "" || m.Key == "" {
		return Message{}, fmt.Errorf("outbox: a message needs a kind and a key")
	}
	var got Message
	var refused error
	err := b.update(a, func(f *file) bool {
		if old := f.find(m.Kind, m.Key); old != nil {
			got = *old
			return false
		}
		f.prune(m.Kind, now)
		all := make([]Message, len(f.Messages))
		for i, x := range f.Messages {
			all[i] = *x
		}
		if err := check(all); err != nil {
			refused = err
			return false
		}
		m.State, m.QueuedAt, m.SentAt, m.Why, m.ReadAt = Queued, now, time.Time{}, "", time.Time{}
		f.Messages = append(f.Messages, &m)
		got = m
		return true
	})
	if err != nil {
		return Message{}, err
	}
	if refused != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrRefused, refused)
	}
	return got, nil
}

// keepSettled is how long a settled message of a peer stays in its
// outbox: owt messages and check_messages show the traffic of a week.
const keepSettled = 7 * 24 * time.Hour

// prune drops settled messages of kind older than keepSettled (queued
// ones always stay).
func (f *file) prune(kind string, now time.Time) {
	f.Messages = slices.DeleteFunc(f.Messages, func(m *Message) bool {
		return m.Kind == kind && m.State != Queued && now.Sub(m.QueuedAt) > keepSettled
	})
}

// Messages are a's messages of kind, in every state, oldest first.
func (b Box) Messages(a Agent, kind string) ([]Message, error) {
	f, err := b.read(a)
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range f.Messages {
		if m.Kind == kind {
			out = append(out, *m)
		}
	}
	return out, nil
}

// ReadByAgent is why a message read with check_messages is not typed.
const ReadByAgent = "read with check_messages"

// Read returns a's messages of kind queued since since, oldest first, as
// they were, and marks the unread ones read at now. One still queued and
// not being typed is withdrawn (ReadByAgent): the agent has it, and
// typing it later would start a turn about something already handled.
func (b Box) Read(a Agent, kind string, since, now time.Time) ([]Message, error) {
	var out []Message
	err := b.update(a, func(f *file) bool {
		changed := false
		for _, m := range f.Messages {
			if m.Kind != kind || m.QueuedAt.Before(since) {
				continue
			}
			seen := *m // as it was: ReadAt zero says new
			if m.ReadAt.IsZero() {
				m.ReadAt, changed = now, true
			}
			if m.State == Queued && m.SentAt.IsZero() {
				m.State, m.Why, changed = Withdrawn, ReadByAgent, true
			}
			seen.State, seen.Why = m.State, m.Why
			out = append(out, seen)
		}
		return changed
	})
	return out, err
}

// Loop is a pair of agents whose messages the loop guard refused: the
// user is needed to break it.
type Loop struct {
	Repo string    `json:"repo"`
	From string    `json:"from"`
	To   string    `json:"to"`
	At   time.Time `json:"at"` // the last refusal
	// Refused counts the messages refused since the first of this loop.
	Refused int    `json:"refused"`
	Why     string `json:"why"`
	// Window is the sender's message window: the pair needs the user
	// until it passes after the last refusal (or DismissLoop).
	Window time.Duration `json:"window"`
}

type loopsFile struct {
	Loops []Loop `json:"loops"`
	// Dismissed is when the user last dismissed each sender's loops
	// (DismissLoops), by repo and name: its messages before then count
	// no more toward the loop guard's limit.
	Dismissed map[state.Key]time.Time `json:"dismissed,omitempty"`
}

// loopsPath is outside the glob of outbox files (*.json).
func (b Box) loopsPath() string { return filepath.Join(b.Dir, "loops", "loops.json") }

// NoteLoop records that the loop guard refused a message from one agent
// to another: the pair shows in NEEDS YOU until DismissLoop or until
// Loops' window passes.
func (b Box) NoteLoop(l Loop) error {
	return b.loopsDoc().Update(func(f *loopsFile) (bool, error) {
		for i := range f.Loops {
			o := &f.Loops[i]
			if o.Repo == l.Repo && o.From == l.From && o.To == l.To {
				if l.At.Sub(o.At) > o.Window {
					o.Refused = 0 // that loop ended: this is a new one
				}
				o.At, o.Why, o.Window = l.At, l.Why, l.Window
				o.Refused++
				return true, nil
			}
		}
		l.Refused = 1
		f.Loops = append(f.Loops, l)
		// Loops long over are forgotten.
		f.Loops = slices.DeleteFunc(f.Loops, func(o Loop) bool { return l.At.Sub(o.At) > o.Window+24*time.Hour })
		return true, nil
	})
}

// DismissLoops forgets every loop agent name of repo sent into; it
// reports how many.
// The sender starts afresh: its messages so far no longer count toward
// the guard's limit (LoopDismissed), so the next one is not refused
// straight away and does not raise NEEDS YOU again.
func (b Box) DismissLoops(repo, name string) (int, error) {
	n := 0
	err := b.loopsDoc().Update(func(f *loopsFile) (bool, error) {
		before := len(f.Loops)
		f.Loops = slices.DeleteFunc(f.Loops, func(o Loop) bool { return o.Repo == repo && o.From == name })
		n = before - len(f.Loops)
		if n == 0 {
			return false, nil
		}
		if f.Dismissed == nil {
			f.Dismissed = map[state.Key]time.Time{}
		}
		f.Dismissed[state.Key{Repo: repo, Name: name}] = time.Now()
		return true, nil
	})
	return n, err
}

// LoopDismissed is when the user last dismissed the loops of the sender
// name of repo (zero: never): the loop guard counts its messages since.
func (b Box) LoopDismissed(repo, name string) time.Time {
	f, err := readLoops(b.loopsPath())
	if err != nil {
		return time.Time{}
	}
	return f.Dismissed[state.Key{Repo: repo, Name: name}]
}

// ForgetLoopsOf forgets every loop agent name of repo was in, either
// way: it was deleted, and a later agent given its name is in none.
func (b Box) ForgetLoopsOf(repo, name string) error {
	return b.loopsDoc().Update(func(f *loopsFile) (bool, error) {
		n := len(f.Loops)
		f.Loops = slices.DeleteFunc(f.Loops, func(o Loop) bool { return o.Repo == repo && (o.From == name || o.To == name) })
		return len(f.Loops) != n, nil
	})
}

// DismissLoop forgets the pair from → to of repo.
func (b Box) DismissLoop(repo, from, to string) error {
	return b.loopsDoc().Update(func(f *loopsFile) (bool, error) {
		n := len(f.Loops)
		f.Loops = slices.DeleteFunc(f.Loops, func(o Loop) bool { return o.Repo == repo && o.From == from && o.To == to })
		return len(f.Loops) != n, nil
	})
}

// Loops are the refused pairs whose last refusal is within their window
// of now.
func (b Box) Loops(now time.Time) []Loop {
	f, err := readLoops(b.loopsPath())
	if err != nil {
		return nil
	}
	var out []Loop
	for _, l := range f.Loops {
		if now.Sub(l.At) <= l.Window {
			out = append(out, l)
		}
	}
	return out
}

func (b Box) loopsDoc() state.JSONFile[loopsFile] {
	path := b.loopsPath()
	return state.JSONFile[loopsFile]{
		Path: path, LockPath: path + ".lock", What: "agent message loops",
		Load: func() (*loopsFile, error) { return readLoops(path) },
		Corrupt: func(err error) (*loopsFile, error) {
			if !errors.Is(err, errCorrupt) {
				return nil, err
			}
			if _, rerr := atomicfile.SetAside(path); rerr != nil {
				return nil, fmt.Errorf("%v; set it aside: %w", err, rerr)
			}
			return &loopsFile{}, nil
		},
	}
}

func readLoops(path string) (*loopsFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &loopsFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	var f loopsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, errCorrupt)
	}
	return &f, nil
}

// Counts are one agent's messages to and from its peers.
type Counts struct {
	Sent     int `json:"sent"`
	Received int `json:"received"`
	Unread   int `json:"unread"` // received and not read with check_messages
	Queued   int `json:"queued"` // received and not typed yet
}

// PeerCounts counts the peer messages of agents, by repo and name:
// one read of each agent's outbox. Messages sent count for their sender
// when it is among agents. since gives, per agent, when it was made: a
// message to an earlier agent of the same name is not its.
func (b Box) PeerCounts(agents []Agent, since map[Agent]time.Time) map[state.Key]Counts {
	out := make(map[state.Key]Counts, len(agents))
	for _, a := range agents {
		f, err := b.read(a)
		if err != nil {
			continue
		}
		for _, m := range f.Messages {
			if m.Kind != KindPeer || m.QueuedAt.Before(since[a]) {
				continue
			}
			to, from := state.Key{Repo: a.Repo, Name: a.Name}, state.Key{Repo: a.Repo, Name: m.From}
			c := out[to]
			c.Received++
			if m.ReadAt.IsZero() {
				c.Unread++
			}
			if m.State == Queued {
				c.Queued++
			}
			out[to] = c
			sent := out[from]
			sent.Sent++
			out[from] = sent
		}
	}
	return out
}

// Delivered are a's delivered messages of kind, oldest first.
func (b Box) Delivered(a Agent, kind string) ([]Message, error) {
	all, err := b.Messages(a, kind)
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range all {
		if m.State == Delivered {
			out = append(out, m)
		}
	}
	return out, nil
}
