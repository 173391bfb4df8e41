package notify

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/stretchr/testify/require"
)

// fakeChannel fails its first fails sends, or blocks until release.
type fakeChannel struct {
	name    string
	fails   int
	perm    bool
	calls   atomic.Int32
	release chan struct{}
	mu      sync.Mutex
	got     []Notice
}

func (f *fakeChannel) Name() string { return f.name }

func (f *fakeChannel) Send(ctx context.Context, n Notice) error {
	c := int(f.calls.Add(1))
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if c <= f.fails {
		if f.perm {
			return Permanent(errors.New("refused"))
		}
		return errors.New("down")
	}
	f.mu.Lock()
	f.got = append(f.got, n)
	f.mu.Unlock()
	return nil
}

type failures struct {
	mu    sync.Mutex
	lines []string
}

func (f *failures) add(_ Notice, ch string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, ch+": "+err.Error())
}

// A failed send is tried again, a bounded number of times; a permanent
// failure is not; a failure is told once, after the last attempt.
func TestDeliveryRetriesBoundedAndTellsEachFailureOnce(t *testing.T) {
	var fl failures
	d := &Dispatcher{Failed: fl.add, Backoff: time.Millisecond}
	flaky := &fakeChannel{name: "flaky", fails: 2}
	dead := &fakeChannel{name: "dead", fails: 100}
	refused := &fakeChannel{name: "refused", fails: 100, perm: true}
	routes := []Route{
		{Channel: flaky, On: []string{"idle"}, Retries: 2},
		{Channel: dead, On: []string{"idle"}, Retries: 2},
		{Channel: refused, On: []string{"idle"}, Retries: 2},
	}
	d.Dispatch(routes, Notice{Status: "idle", Text: "t"})
	d.Wait()
	require.EqualValues(t, 3, flaky.calls.Load())
	require.Len(t, flaky.got, 1)
	require.EqualValues(t, 3, dead.calls.Load(), "two retries, no more")
	require.EqualValues(t, 1, refused.calls.Load(), "a permanent failure is not retried")
	require.ElementsMatch(t, []string{"dead: down (after 3 attempts)", "refused: refused"}, fl.lines)
}

// Each route takes only the statuses of its filter.
func TestDispatchFollowsEachRoutesFilter(t *testing.T) {
	d := &Dispatcher{}
	a := &fakeChannel{name: "a"}
	b := &fakeChannel{name: "b"}
	d.Dispatch([]Route{{Channel: a, On: []string{"waiting"}}, {Channel: b, On: []string{"exited"}}}, Notice{Status: "waiting"})
	d.Wait()
	require.Len(t, a.got, 1)
	require.Empty(t, b.got)
}

// A channel that hangs holds neither the caller nor more than its
// slots: past QueueSize deliveries under way, a notice is dropped with
// one line each, at once.
func TestAHungChannelNeverBlocksDispatch(t *testing.T) {
	var fl failures
	d := &Dispatcher{Failed: fl.add}
	hung := &fakeChannel{name: "hung", release: make(chan struct{})}
	r := []Route{{Channel: hung, On: []string{"idle"}, Timeout: time.Minute}}
	start := time.Now()
	for i := 0; i < QueueSize+3; i++ {
		d.Dispatch(r, Notice{Status: "idle"})
	}
	require.Less(t, time.Since(start), time.Second, "Dispatch returned at once")
	fl.mu.Lock()
	require.Len(t, fl.lines, 3)
	require.Contains(t, fl.lines[0], "dropped")
	fl.mu.Unlock()
	close(hung.release)
	d.Wait()
	require.Len(t, hung.got, QueueSize)
}

// A send that outlives its timeout is ended by it.
func TestEachAttemptIsBoundedByTheTimeout(t *testing.T) {
	hung := &fakeChannel{name: "hung", release: make(chan struct{})}
	start := time.Now()
	err := Deliver(context.Background(), Route{Channel: hung, Timeout: 20 * time.Millisecond, Retries: 1}, Notice{}, time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualValues(t, 2, hung.calls.Load())
	require.Less(t, time.Since(start), 2*time.Second)
}

// A channel without an on of its own takes [notify] on; one with on = []
// takes nothing. Wanted is true when anything takes the status.
func TestChannelsFilterByTheirOwnOnElseNotifyOn(t *testing.T) {
	cfg := config.Defaults().Notify
	cfg.On = []string{"waiting"}
	cfg.Desktop.Enabled = true
	cfg.Webhook.URL = "http://127.0.0.1:1/hook"
	cfg.Webhook.On = []string{"exited"}
	rs := Configured(cfg, Deps{})
	byName := map[string]Route{}
	for _, r := range rs {
		byName[r.Channel.Name()] = r
	}
	require.True(t, byName["desktop"].Takes("waiting"))
	require.False(t, byName["desktop"].Takes("exited"))
	if wh, ok := byName["webhook"]; ok {
		require.True(t, wh.Takes("exited"))
		require.False(t, wh.Takes("waiting"))
	}
	require.True(t, Wanted(cfg, rs, "waiting"))
	require.False(t, Wanted(cfg, rs, "idle"))
	cfg.Desktop.On = []string{}
	require.False(t, Configured(cfg, Deps{})[0].Takes("waiting"))
}
