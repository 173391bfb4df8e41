package monitor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// replies answers prompts from the buttons of ntfy notices ([notify.ntfy]
// reply = true). A prompt's notice carries a one-shot ticket's token
// (ntfy.Tickets); from the first such notice on, the monitor follows the
// server's reply topic (an outbound stream: owt listens on no port). A
// reply answers exactly as owt send --answer does, with the choice's key
// only, and only the prompt its notice was about: refused, and told back
// on the topic, when the token was used already, the agent moved on (its
// waiting began anew, or it does not wait) or its dialog changed.
type replies struct {
	tickets ntfy.Tickets
	tm      *tmux.Client
	http    httpcall.Doer
	note    func(r *state.Record, event, format string, args ...any)
	backoff ntfy.Backoff

	mu        sync.Mutex
	ctx       context.Context
	stop      context.CancelFunc
	following map[string]bool // by server and reply topic
	busy      sync.WaitGroup
}

func newReplies(tm *tmux.Client, note func(r *state.Record, event, format string, args ...any)) *replies {
	rs := &replies{tm: tm, http: httpcall.Sibling{}, note: note, backoff: ntfy.DefaultBackoff, following: map[string]bool{}}
	rs.ctx, rs.stop = context.WithCancel(context.Background())
	rs.tickets.OnIssue = func(t ntfy.Ticket) { rs.follow(t.Server) }
	return rs
}

// close stops following every reply topic and waits for answers under way.
func (rs *replies) close() {
	rs.stop()
	rs.busy.Wait()
}

// follow starts following s's reply topic, once.
func (rs *replies) follow(s ntfy.Server) {
	key := s.URL + "\x00" + s.ReplyTopic + "\x00" + s.TokenEnv
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.following[key] || rs.ctx.Err() != nil {
		return
	}
	rs.following[key] = true
	rs.busy.Add(1)
	go func() {
		defer rs.busy.Done()
		ntfy.Subscribe(rs.ctx, rs.http, s, s.ReplyTopic, rs.backoff, func(ev ntfy.Event) { rs.reply(s, ev) },
			func(err error) { rs.note(&state.Record{}, "error", "ntfy: follow the reply topic: %v", err) })
	}()
}

// reply handles one message of a reply topic.
func (rs *replies) reply(s ntfy.Server, ev ntfy.Event) {
	token, key, ok := ntfy.ParseReply(ev.Message)
	if !ok {
		return // not a button's reply
	}
	t, err := rs.tickets.Use(token, key)
	if errors.Is(err, ntfy.ErrUnknownTicket) {
		// Another owt (another tmux server's monitor) may share the
		// topic: its tokens are not this one's to refuse.
		rs.note(&state.Record{}, "notify", "ntfy: a reply with a token this monitor did not issue; left alone")
		return
	}
	if err != nil {
		rec := &state.Record{Repo: t.Repo, Name: t.Agent}
		rs.note(rec, "notify", "ntfy: reply to %s's prompt refused: %v", t.Agent, err)
		rs.tell(s, t.Agent, "owt: your reply to "+t.Agent+"'s prompt was not typed: "+err.Error())
		return
	}
	rs.busy.Add(1)
	go func() {
		defer rs.busy.Done()
		rs.answer(s, t, key)
	}()
}

// answer types key into t's agent if it still waits at t's prompt.
func (rs *replies) answer(s ntfy.Server, t ntfy.Ticket, key string) {
	rec := &state.Record{Repo: t.Repo, Name: t.Agent}
	refuse := func(why string) {
		rs.note(rec, "notify", "ntfy: reply %s to %s's prompt refused: %s", key, t.Agent, why)
		rs.tell(s, t.Agent, "owt: your reply to "+t.Agent+"'s prompt was not typed: "+why)
	}
	w, err := workspace.OpenRoot(t.Repo, rs.tm)
	if w == nil {
		refuse(fmt.Sprintf("its repository cannot be read (%v)", err))
		return
	}
	if !w.Config.Notify.Ntfy.Reply {
		refuse("replies are off now ([notify.ntfy] reply)")
		return
	}
	r, err := w.Get(t.Agent)
	if err != nil {
		refuse("it is gone")
		return
	}
	if prompt, _ := promptOf(w, r); prompt != t.Prompt {
		refuse("that prompt is no longer on its screen (it was answered, or the agent moved on)")
		return
	}
	res := send.EachWith(w, []*state.Record{r}, untrusted.From(key), send.Options{Answer: true})
	if len(res) == 1 && res[0].Err == "" {
		rs.note(r, "notify", "ntfy: typed reply %s into %s's prompt", key, r.Name)
		rs.tell(s, r.Name, "owt: answered "+r.Name+"'s prompt with "+key)
		return
	}
	why := "it was not typed"
	if len(res) == 1 {
		why = res[0].Err
	}
	refuse(why)
}

// tell publishes a short line about a reply to the notices' topic.
func (rs *replies) tell(s ntfy.Server, agentName, text string) {
	ctx, cancel := context.WithTimeout(rs.ctx, ntfy.Timeout)
	defer cancel()
	err := ntfy.Publish(ctx, rs.http, s, ntfy.Message{Topic: s.Topic, Title: untrusted.ShortLine(agentName, 120),
		Message: untrusted.ShortLine(text, 1000), Priority: ntfy.PriorityDefault})
	if err != nil {
		rs.note(&state.Record{}, "error", "ntfy: tell the reply's outcome: %v", err)
	}
}

// promptOf names the prompt r's agent waits at, as its screen shows it
// now (its waiting status's start and its dialog's text), with the
// dialog's numbered choices; "" when it waits at none.
func promptOf(w *workspace.Workspace, r *state.Record) (string, []agent.Choice) {
	if r.Status != state.Waiting {
		return "", nil
	}
	cl := w.ToolClassifier(r.Tool)
	if cl == nil {
		return "", nil
	}
	screen, err := w.Tmux.Capture(r.Pane)
	if err != nil {
		return "", nil
	}
	block := cl.WaitingBlock(screen)
	if block == "" {
		return "", nil
	}
	sum := sha256.Sum256([]byte(block))
	return strconv.FormatInt(r.StatusSince.UnixNano(), 36) + "-" + hex.EncodeToString(sum[:8]), agent.Choices(block)
}
