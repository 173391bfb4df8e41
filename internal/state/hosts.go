package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// RemoteAgent is what this machine knows of an agent on a host: enough
// for the status bar (its status and whether it needs the user).
type RemoteAgent struct {
	Name     string    `json:"name"`
	Repo     string    `json:"repo"`
	Branch   string    `json:"branch,omitempty"`
	Session  string    `json:"session,omitempty"` // its tmux session's name there
	Created  time.Time `json:"created,omitempty"`
	Tool     string    `json:"tool,omitempty"` // "" for a shell
	Status   Status    `json:"status"`
	Since    time.Time `json:"since"`
	NeedsYou bool      `json:"needs_you,omitempty"` // an escalated reaction there
	// EventAt is its last hook event there: a sign of life while it
	// works (a run task's stall clock).
	EventAt time.Time `json:"event_at,omitzero"`
	// Lost: its session went (its tmux server died there, the machine
	// rebooted) and its owt there would bring it back (owt restore).
	Lost bool `json:"lost,omitempty"`
}

// LostCount is how many of agents are Lost: owt restore there would
// bring them back.
func LostCount(agents []RemoteAgent) int {
	n := 0
	for _, a := range agents {
		if a.Lost {
			n++
		}
	}
	return n
}

// HostStatus is the last word of one host's status stream, kept by the
// monitor that follows it (one file per host) and read by the status bar.
type HostStatus struct {
	Host string `json:"host"`
	// At is when the host last said anything; Reachable is whether the
	// stream is up now. An unreachable host's Agents are the last known.
	At        time.Time     `json:"at"`
	Reachable bool          `json:"reachable"`
	Error     string        `json:"error,omitempty"`
	Agents    []RemoteAgent `json:"agents"`
}

// hostStatusDir holds one HostStatus file per followed host.
func hostStatusDir() string { return filepath.Join(Dir(), "hosts", "status") }

// WriteHostStatus replaces the host's status file.
func WriteHostStatus(hs HostStatus) error {
	if err := os.MkdirAll(hostStatusDir(), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(hs)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(hostStatusDir(), hs.Host+".json"), b)
}

// RemoveHostStatus forgets a host that is no longer followed.
func RemoveHostStatus(host string) error {
	err := os.Remove(filepath.Join(hostStatusDir(), host+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// HostStatuses are every followed host's last status, by host name; a
// file that does not read is left out.
func HostStatuses() []HostStatus {
	entries, err := os.ReadDir(hostStatusDir())
	if err != nil {
		return nil
	}
	var out []HostStatus
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(hostStatusDir(), e.Name()))
		if err != nil {
			continue
		}
		var hs HostStatus
		if json.Unmarshal(b, &hs) == nil && hs.Host+".json" == e.Name() {
			out = append(out, hs)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// RemoteAgents are the records' RemoteAgent view: what a host's status
// stream says of its agents.
func RemoteAgents(recs []*Record) []RemoteAgent {
	out := make([]RemoteAgent, 0, len(recs))
	for _, r := range recs {
		tool := r.Tool
		if r.NoAgent {
			tool = ""
		}
		out = append(out, RemoteAgent{Name: r.Name, Repo: r.Repo, Branch: r.Branch, Session: r.Session, Created: r.CreatedAt,
			Tool: tool, Status: r.Status, Since: r.StatusSince, NeedsYou: r.NeedsUser(), EventAt: r.EventAt})
	}
	return out
}
