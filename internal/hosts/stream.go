package hosts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// StreamLine is one line of a host's status stream (owt host stream):
// every agent there, sent when any status changed and every heartbeat.
type StreamLine struct {
	Agents []state.RemoteAgent `json:"agents"`
}

// Stream timings: how often the state folder is looked at (a stat; the
// records are read only when it changed), and the longest silence, so
// a follower sees the host alive and a stream whose reader went away
// ends.
const (
	streamPoll      = 100 * time.Millisecond
	streamHeartbeat = 15 * time.Second
)

// Stream writes this machine's agents to out as JSON lines (StreamLine)
// until ctx ends, stop is closed or out cannot be written: the remote
// side of a follower. Every write of a record changes state.Signature,
// which says when to read them again.
func Stream(ctx context.Context, out io.Writer, stop <-chan struct{}) error {
	var lastSig string
	var last []byte
	var sent time.Time
	poll := time.NewTicker(streamPoll)
	defer poll.Stop()
	for first := true; ; first = false {
		sig, _ := state.Signature()
		if first || sig != lastSig || time.Since(sent) >= streamHeartbeat {
			lastSig = sig
			recs, err := workspace.AllRecords()
			if err != nil {
				return err
			}
			line, err := json.Marshal(StreamLine{Agents: withLost(recs)})
			if err != nil {
				return err
			}
			if first || !bytes.Equal(line, last) || time.Since(sent) >= streamHeartbeat {
				if _, err := out.Write(append(line, '\n')); err != nil {
					return nil // the reader went away
				}
				last, sent = line, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		case <-poll.C:
		}
	}
}

// withLost is the records' RemoteAgent view, each marked Lost when its
// session is gone and owt restore here would bring it back; the tmux
// servers' sessions are asked once (none when no server runs).
func withLost(recs []*state.Record) []state.RemoteAgent {
	agents := state.RemoteAgents(recs)
	loc, err := workspace.ListLocator(tmux.New())
	if err != nil {
		return agents
	}
	for i, r := range recs {
		agents[i].Lost = lifecycle.Lost(r, loc.Locate(r))
	}
	return agents
}

// Follow keeps the host's status stream open (owt host stream there, one
// channel of the shared connection) and calls update with each line,
// until the stream ends or ctx does. It returns why the stream ended.
func (h *Host) Follow(ctx context.Context, update func([]state.RemoteAgent)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// stdin stays open while we follow: its end tells the remote owt to
	// stop at once. An *os.File, so ssh holds it itself: a reader of our
	// own that never ends would keep exec's Wait waiting after ssh ended.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer stdinR.Close()
	defer stdinW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var line StreamLine
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				done <- fmt.Errorf("host %s: unreadable status line: %w", h.Name, err)
				cancel()
				_, _ = io.Copy(io.Discard, outR)
				return
			}
			update(line.Agents)
		}
		done <- sc.Err()
	}()
	err = h.SSH.Run(ctx, ssh.Remote{Argv: remoteOwt("host", "stream"), Stdin: stdinR, Stdout: outW})
	outW.Close()
	if lineErr := <-done; lineErr != nil && err == nil {
		err = lineErr
	}
	if err == nil {
		err = errors.New("the status stream ended")
	}
	return err
}
