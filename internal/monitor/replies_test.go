package monitor

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/ntfy"
	"github.com/owt-tmux/owt/internal/state"
)

// publishes records what the replies publish (no server).
type publishes struct {
	mu   sync.Mutex
	msgs []ntfy.Message
}

func (p *publishes) Do(_ context.Context, req httpcall.Request) (httpcall.Response, error) {
	var m ntfy.Message
	if err := json.Unmarshal(req.Body, &m); err != nil {
		return httpcall.Response{}, err
	}
	p.mu.Lock()
	p.msgs = append(p.msgs, m)
	p.mu.Unlock()
	return httpcall.Response{Status: 200}, nil
}

func (p *publishes) Stream(ctx context.Context, _ httpcall.Request, _ func([]byte) bool) error {
	<-ctx.Done()
	return ctx.Err()
}

// A reply with a spent token, or a key that is none of the prompt's
// choices, is refused and told back on the notices' topic; one whose
// token this monitor never issued (another server's monitor shares the
// topic) is left alone, untold; a message that is no reply is ignored.
func TestRepliesRefuseWhatTheyCannotAnswer(t *testing.T) {
	var pub publishes
	var logged []string
	rs := newReplies(nil, func(_ *state.Record, _, format string, args ...any) { logged = append(logged, format) })
	rs.http = &pub
	defer rs.close()
	s := ntfy.Server{URL: "http://127.0.0.1:1", Topic: "me", ReplyTopic: "me-reply"}
	token, err := rs.tickets.Issue(ntfy.Ticket{Repo: "/r", Agent: "a", Prompt: "p", Keys: []string{"1", "2"}, Server: s})
	require.NoError(t, err)
	_, err = rs.tickets.Use(token, "1") // answered once already
	require.NoError(t, err)

	rs.reply(s, ntfy.Event{Message: ntfy.ReplyBody(token, "2")})
	rs.reply(s, ntfy.Event{Message: ntfy.ReplyBody("bbbbbbbbbbbbbbbbbbbbbbbb", "1")})
	rs.reply(s, ntfy.Event{Message: "hello from someone"})
	token2, _ := rs.tickets.Issue(ntfy.Ticket{Repo: "/r", Agent: "a", Prompt: "p2", Keys: []string{"1", "2"}, Server: s})
	rs.reply(s, ntfy.Event{Message: ntfy.ReplyBody(token2, "7")})

	require.Len(t, pub.msgs, 2, "told: the spent token and the wrong key; not the stranger's token")
	require.Equal(t, "me", pub.msgs[0].Topic)
	require.Contains(t, pub.msgs[0].Message, "was answered already")
	require.Contains(t, pub.msgs[1].Message, "none of the prompt's choices")
	_, err = rs.tickets.Use(token2, "1")
	require.NoError(t, err, "a wrong key spends no token")
}
