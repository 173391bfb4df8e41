package notify

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A hung channel fills only its own slots: another channel's notices all
// go, where a dead webhook holding the shared 64 slots had the terminal's
// and the desktop's notices dropped ("a slow or dead channel never holds
// up … another channel", the notifications guide).
func TestAHungChannelTakesNoOtherChannelsTurn(t *testing.T) {
	var fl failures
	d := &Dispatcher{Failed: fl.add}
	hung := &fakeChannel{name: "webhook", release: make(chan struct{})}
	fast := &fakeChannel{name: "terminal"}
	r := []Route{{Channel: hung, On: []string{"idle"}, Timeout: time.Minute}, {Channel: fast, On: []string{"idle"}, Timeout: time.Minute}}
	for i := 0; i < QueueSize+10; i++ {
		d.Dispatch(r, Notice{Status: "idle"})
		time.Sleep(time.Millisecond) // the fast one's are done by the next
	}
	require.Eventually(t, func() bool {
		fast.mu.Lock()
		defer fast.mu.Unlock()
		return len(fast.got) == QueueSize+10
	}, 5*time.Second, 10*time.Millisecond, "every notice of the other channel went")
	fl.mu.Lock()
	require.Len(t, fl.lines, 10, "only the hung channel's notices past its slots are dropped")
	for _, l := range fl.lines {
		require.Contains(t, l, "webhook")
	}
	fl.mu.Unlock()
	close(hung.release)
	d.Wait()
}
