package peers

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Sent is what became of one message send_message was given.
type Sent struct {
	ID string `json:"id,omitempty"`
	To string `json:"to"`
	// Result is "delivered" (the peer's tool took it), "queued" (it waits
	// for the peer to be idle and unwatched: Why says what holds it),
	// "undeliverable", "refused" (the loop guard) or "repeat" (the same
	// text as the last message to that peer: dropped).
	Result string `json:"result"`
	Why    string `json:"why,omitempty"`
}

// Send results.
const (
	Delivered     = "delivered"
	Queued        = "queued"
	Undeliverable = "undeliverable"
	Refused       = "refused"
	Repeat        = "repeat"
)

// All is the to of a message for every peer.
const All = "all"

// errLoop and errRepeat are the loop guard's refusals.
var (
	errLoop   = errors.New("loop guard")
	errRepeat = errors.New("repeat")
)

// prefix is what every message begins with: who sent it.
func prefix(from string) string { return "[from " + from + "] " }

// AsCaller is text as the process pid sends it (owt send, owt swarm
// send): signed (Signed) when pid runs inside an agent, its shell tool
// (lifecycle.CallingAgent), which is returned too; the user's own text
// as it is, with nil.
func AsCaller(pid int, text string) (string, *state.Record, error) {
	me, err := lifecycle.CallingAgent(pid)
	if err != nil || me == nil {
		return text, nil, err
	}
	return Signed(me.Name, text), me, nil
}

// Signed is body as the peer reads it: the sender's prefix, and no line
// of the body starting as a prefix would (quoted "> "), so a sender
// cannot make part of its message read as another's. A message of the
// agent from typed as owt send by its shell is signed so too: it reads
// as the agent's, not the user's.
func Signed(from, body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "[from ") {
			lines[i] = "> " + l
		}
	}
	return prefix(from) + strings.Join(lines, "\n")
}

// CheckText is the text of a message, note or spawned agent's task as an
// agent may send it: without control characters (untrusted.Clean), which
// would drive the peer's terminal (an OSC 2 retitles its pane) or arrive
// as keys.
func CheckText(s string) (string, error) {
	s = strings.TrimSpace(untrusted.Clean(s))
	switch {
	case s == "":
		return "", fmt.Errorf("%w: the text is empty", ErrBadText)
	case len(s) > MaxText:
		return "", fmt.Errorf("%w: the text is %d bytes; at most %d (32 KiB) can be sent", ErrBadText, len(s), MaxText)
	}
	return s, nil
}

// Send queues msg for the peer to (or every peer, All) in its outbox,
// whose courier types it when the peer is idle and nobody is on its pane,
// then waits up to DeliverWait for it to be typed, so the result says
// delivered only when it was. A peer that exited, a shell, an unknown
// name or bad text is an error and nothing is queued.
func (p *Peers) Send(to, msg string) ([]Sent, error) {
	body, err := CheckText(msg)
	if err != nil {
		return nil, err
	}
	me, recs, err := p.self()
	if err != nil {
		return nil, err
	}
	var targets []*state.Record
	if to == All {
		for _, r := range others(me, recs) {
			if !r.NoAgent && r.Status != state.Exited {
				targets = append(targets, r)
			}
		}
		if len(targets) == 0 {
			return nil, fmt.Errorf("%w: you have no live peers to message", ErrUnknownPeer)
		}
	} else {
		r, err := findPeer(me, recs, to)
		if err != nil {
			return nil, err
		}
		switch {
		case r.NoAgent:
			return nil, fmt.Errorf("%w: %s is a shell, not an agent", ErrUnknownPeer, to)
		case r.Status == state.Exited:
			return nil, fmt.Errorf("%w: %s (nothing was queued)", ErrPeerExited, to)
		}
		targets = []*state.Record{r}
	}
	cfg := p.W.Config.MCP
	out := make([]Sent, 0, len(targets))
	ready := map[string]bool{}
	agents := map[string]outbox.Agent{}
	for _, r := range targets {
		out = append(out, p.queue(me, r, body, cfg.MessageLimit, cfg.MessageWindow.Duration))
		ready[r.Name] = outbox.Ready(r)
		agents[r.Name] = outbox.Of(r)
	}
	// The courier is the monitor's: make sure this server has one.
	if err := daemon.EnsureRunning(p.W.Self, p.W.Tmux); err != nil {
		for i := range out {
			if out[i].Result == Queued {
				out[i].Why = "owt's monitor could not be started (" + err.Error() + "): it waits until one runs"
			}
		}
		return out, nil
	}
	p.await(agents, out, ready)
	return out, nil
}

// queue puts one message in r's outbox, unless the loop guard refuses it.
func (p *Peers) queue(me, r *state.Record, body string, limit int, window time.Duration) Sent {
	now := p.Now()
	a := outbox.Of(r)
	m := outbox.Message{Kind: outbox.KindPeer, Key: newID(now), From: me.Name, Text: Signed(me.Name, body)}
	// Messages before the user dismissed this sender's loops (owt
	// dismiss NAME message_loop) count no more: it starts afresh.
	since := r.CreatedAt
	if d := p.Box.LoopDismissed(me.Repo, me.Name); d.After(since) {
		since = d
	}
	got, err := p.Box.EnqueueChecked(a, m, now, func(old []outbox.Message) error {
		return guard(old, me.Name, m.Text, since, now, limit, window)
	})
	switch {
	case errors.Is(err, errRepeat):
		return Sent{To: r.Name, Result: Repeat, Why: "the same text as your last message to " + r.Name + ": dropped"}
	case errors.Is(err, errLoop):
		why := fmt.Sprintf("you sent %s %d messages in the last %s; the user has been asked to look (NEEDS YOU)", r.Name, limit, window)
		if err := p.Box.NoteLoop(outbox.Loop{Repo: r.Repo, From: me.Name, To: r.Name, At: now, Window: window,
			Why: fmt.Sprintf("%d messages in %s", limit, window)}); err != nil {
			why = fmt.Sprintf("you sent %s %d messages in the last %s; owt could not tell the user: %v", r.Name, limit, window, err)
		}
		return Sent{To: r.Name, Result: Refused, Why: why}
	case err != nil:
		return Sent{To: r.Name, Result: Undeliverable, Why: err.Error()}
	}
	p.traffic(me, r, body, now)
	return Sent{ID: got.Key, To: r.Name, Result: Queued}
}

// guard is the loop guard: the text of the last message from this
// sender again, while that one is on its way or was typed within window,
// is a repeat; limit messages within window is a loop. Messages queued
// before since (for an earlier agent of the peer's name) do not count.
func guard(old []outbox.Message, from, txt string, since, now time.Time, limit int, window time.Duration) error {
	n := 0
	var last *outbox.Message
	for i := range old {
		m := &old[i]
		if m.Kind != outbox.KindPeer || m.From != from || m.QueuedAt.Before(since) {
			continue
		}
		last = m
		if now.Sub(m.QueuedAt) < window {
			n++
		}
	}
	if last != nil && last.Text == txt && now.Sub(last.QueuedAt) < window &&
		(last.State == outbox.Queued || last.State == outbox.Delivered) {
		return errRepeat
	}
	if n >= limit {
		return errLoop
	}
	return nil
}

// traffic shows a message to the user: RECENT in the control plane, and
// the event log of a run either agent belongs to.
func (p *Peers) traffic(me, to *state.Record, body string, now time.Time) {
	line := me.Name + " → " + to.Name
	first := untrusted.From(body).Short(80)
	control.Note(control.Event{At: now, Repo: me.Repo, Name: line, Event: "message", Detail: first})
	store := run.DefaultStore()
	runs, _ := store.List()
	for _, r := range runs {
		if r == nil || r.Repo != me.Repo || r.State == run.Finished {
			continue
		}
		for _, t := range r.Tasks {
			if t.Name == me.Name || t.Name == to.Name {
				_ = store.Update(r.Name, func(*run.Run) ([]run.Event, error) {
					return []run.Event{{At: now, Event: "message", Task: t.ID, Detail: line + ": " + first}}, nil
				})
				break
			}
		}
	}
}

// await waits, up to DeliverWait, until every queued message of sent to
// a peer that was ready (its turn over) is settled, and fills in what
// became of each: a busy peer's message is not waited for.
func (p *Peers) await(agents map[string]outbox.Agent, sent []Sent, ready map[string]bool) {
	deadline := time.Now().Add(p.DeliverWait)
	for {
		pending := 0
		for i := range sent {
			s := &sent[i]
			if s.Result != Queued {
				continue
			}
			m, ok, err := p.Box.Lookup(agents[s.To], outbox.KindPeer, s.ID)
			switch {
			case err != nil || !ok:
				continue
			case m.State == outbox.Delivered:
				s.Result, s.Why = Delivered, ""
			case m.State == outbox.Undeliverable:
				s.Result, s.Why = Undeliverable, m.Why
			default:
				s.Why = m.Why
				if ready[s.To] {
					pending++
				}
			}
		}
		if pending == 0 || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := range sent {
		if sent[i].Result != Queued || sent[i].Why != "" {
			continue
		}
		if ready[sent[i].To] {
			sent[i].Why = sent[i].To + " is idle, but its message was not typed within " + p.DeliverWait.String() + ": owt's monitor types it on its next tick"
		} else {
			sent[i].Why = "it is typed when " + sent[i].To + "'s turn is over and nobody is on its pane"
		}
	}
}

func newID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("m%d-%s", now.UnixMilli(), hex.EncodeToString(b[:]))
}

// Received is one message another agent sent me.
type Received struct {
	ID       string              `json:"id"`
	From     string              `json:"from"`
	Text     untrusted.Untrusted `json:"text"`
	State    string              `json:"state"` // queued, delivered, undeliverable
	QueuedAt time.Time           `json:"queued_at"`
	// New: not read with check_messages before.
	New bool `json:"new"`
}

// MaxChecked is the most messages one check_messages returns (the
// newest).
const MaxChecked = 50

// Check is the messages addressed to me, oldest first, delivered or not:
// the unread ones, or with all every one of the last week (at most
// MaxChecked, the newest). They are marked read, and one still waiting to
// be typed is not typed any more: I have it now.
func (p *Peers) Check(all bool) ([]Received, error) {
	me, _, err := p.self()
	if err != nil {
		return nil, err
	}
	msgs, err := p.Box.Read(outbox.Of(me), outbox.KindPeer, outbox.Since(me), p.Now())
	if err != nil {
		return nil, err
	}
	out := make([]Received, 0, len(msgs))
	for _, m := range msgs {
		if !all && !m.ReadAt.IsZero() {
			continue
		}
		st := string(m.State)
		if m.State == outbox.Withdrawn && m.Why == outbox.ReadByAgent {
			st = "read" // withdrawn because this read took it
		}
		out = append(out, Received{ID: m.Key, From: m.From, Text: untrusted.From(strings.TrimPrefix(m.Text, prefix(m.From))),
			State: st, QueuedAt: m.QueuedAt, New: m.ReadAt.IsZero()})
	}
	if len(out) > MaxChecked {
		out = out[len(out)-MaxChecked:]
	}
	return out, nil
}

// Entry is one message between two agents, as owt messages shows it.
type Entry struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
	// Former: To names an agent since deleted, not the one of that name now.
	Former   bool                `json:"former,omitempty"`
	Text     untrusted.Untrusted `json:"text"`
	State    string              `json:"state"`
	Why      string              `json:"why,omitempty"`
	QueuedAt time.Time           `json:"queued_at"`
	SentAt   time.Time           `json:"sent_at,omitzero"`
	ReadAt   time.Time           `json:"read_at,omitzero"`
}

// Log is every message between the agents recs, oldest first; with name,
// only those from or to it. Messages to an agent since deleted (another
// life of a name, Former) are there too, as they ended: the queued ones
// were settled undeliverable when it went, and never reach a later agent
// given its name.
func Log(box outbox.Box, recs []*state.Record, name string) ([]Entry, error) {
	var out []Entry
	cur := make(map[outbox.Agent]*state.Record, len(recs))
	var repos []string
	for _, r := range recs {
		cur[outbox.Of(r)] = r
		if !slices.Contains(repos, r.Repo) {
			repos = append(repos, r.Repo)
		}
	}
	for _, repo := range repos {
		boxes, err := box.All(repo, outbox.KindPeer)
		if err != nil {
			return nil, err
		}
		for _, mb := range boxes {
			r := cur[mb.Agent]
			for _, m := range mb.Messages {
				if name != "" && mb.Agent.Name != name && m.From != name {
					continue
				}
				// A record from before lives shares its name's file with
				// an earlier agent of the name: its time tells them apart.
				former := r == nil || m.QueuedAt.Before(outbox.Since(r))
				if former && m.State == outbox.Queued {
					m.State, m.Why = outbox.Undeliverable, outbox.ForDeleted
				}
				out = append(out, Entry{ID: m.Key, From: m.From, To: mb.Agent.Name, Former: former, Text: untrusted.From(strings.TrimPrefix(m.Text, prefix(m.From))),
					State: string(m.State), Why: m.Why, QueuedAt: m.QueuedAt, SentAt: m.SentAt, ReadAt: m.ReadAt})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].QueuedAt.Before(out[j].QueuedAt) })
	return out, nil
}
