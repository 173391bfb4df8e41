// Package peers is what owt mcp gives an agent: the other agents of its
// repository on its own tmux server (their status, branch, task and
// changed files), messages to them through the outbox with a loop guard,
// the messages addressed to it, the shared note, and executor agents it
// spawns. An agent acts only as itself: its identity is its worktree's
// record, found from the OWT_NAME and OWT_REPO owt set in its session.
//
// Imports lifecycle, notes, control, outbox, run, git, state and
// workspace; never monitor, cli or popups.
package peers

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/text"
	"github.com/owt-tmux/owt/internal/workspace"
)

// MaxText is the longest message or note an agent may send (32 KiB).
const MaxText = 32 << 10

// Errors a tool result reports to the agent; each is its own sentence.
var (
	ErrNoIdentity  = errors.New("owt mcp runs inside an agent owt started (OWT_NAME and OWT_REPO are not set)")
	ErrUnknownPeer = errors.New("no such peer")
	ErrBadText     = errors.New("bad text")
	ErrPeerExited  = errors.New("the peer's agent exited")
	ErrSpawnLimit  = errors.New("spawn refused")
)

// Peers is one agent's view of its peers.
type Peers struct {
	W   *workspace.Workspace
	Box outbox.Box
	// Me is the agent's own worktree name.
	Me  string
	Now func() time.Time
	// Deliver waits for a queued message to be typed: until it is
	// delivered or settled otherwise, or wait passes. Nil: never waits.
	DeliverWait time.Duration

	mu    sync.Mutex
	files map[string]filesEntry // by peer name: its changed files, cached
}

type filesEntry struct {
	at    time.Time
	since time.Time // the record's StatusSince when computed
	files []git.FileChange
	err   error
}

// Open is the view of the agent name of the workspace w: it must be an
// agent owt made there.
func Open(w *workspace.Workspace, name string) (*Peers, error) {
	if name == "" {
		return nil, ErrNoIdentity
	}
	if _, err := w.Get(name); err != nil {
		return nil, fmt.Errorf("you are not an agent of %s: %w", w.Repo.Root, err)
	}
	return &Peers{W: w, Box: outbox.Default(), Me: name, Now: time.Now, DeliverWait: 5 * time.Second}, nil
}

// Peer is one other agent as list_peers shows it.
type Peer struct {
	Name    string         `json:"name"`
	Tool    string         `json:"tool"`
	Status  string         `json:"status"`
	Branch  string         `json:"branch"`
	Task    text.Untrusted `json:"task"`
	Spawner string         `json:"spawner,omitempty"`
	// Files it changed against its base; Overlap those I changed too.
	Files   []string `json:"files"`
	Overlap []string `json:"overlap"`
	// FilesError says why Files could not be read.
	FilesError string `json:"files_error,omitempty"`
}

// self is my record, read now.
func (p *Peers) self() (*state.Record, []*state.Record, error) {
	recs, err := p.W.Records()
	if err != nil {
		return nil, nil, err
	}
	var me *state.Record
	for _, r := range recs {
		if r.Name == p.Me {
			me = r
		}
	}
	if me == nil {
		return nil, nil, fmt.Errorf("your worktree %q is no longer owt's", p.Me)
	}
	return me, recs, nil
}

// others are the agents of my repository on my tmux server, not me,
// not half-made and not shells.
func others(me *state.Record, recs []*state.Record) []*state.Record {
	var out []*state.Record
	for _, r := range recs {
		if r.Name == me.Name || r.Creating || r.Socket != me.Socket {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// List is every other agent with its changed files and their overlap
// with mine. A working agent's files may be up to filesFresh old; a
// changed status always reads them again.
func (p *Peers) List() ([]Peer, error) {
	me, recs, err := p.self()
	if err != nil {
		return nil, err
	}
	peers := others(me, recs)
	all := append([]*state.Record{me}, peers...)
	files := p.changedFiles(all)
	mine := map[string]bool{}
	for _, f := range files[me.Name].files {
		mine[f.Path] = true
	}
	out := make([]Peer, 0, len(peers))
	for _, r := range peers {
		pe := Peer{Name: r.Name, Tool: workspace.ToolOf(r), Status: statusWord(r), Branch: r.Branch,
			Task: text.From(r.Task), Spawner: r.Spawner, Files: []string{}, Overlap: []string{}}
		e := files[r.Name]
		if e.err != nil {
			pe.FilesError = e.err.Error()
		}
		for _, f := range e.files {
			pe.Files = append(pe.Files, f.Path)
			if mine[f.Path] {
				pe.Overlap = append(pe.Overlap, f.Path)
			}
		}
		out = append(out, pe)
	}
	return out, nil
}

// statusWord is the status a peer reads: working, waiting, idle, exited
// (starting reads as working: it has its task).
func statusWord(r *state.Record) string {
	switch {
	case r.NoAgent:
		return "shell"
	case r.Status == state.Starting:
		return "working"
	}
	return string(r.Status)
}

// filesFresh is how long the changed files of a working agent are
// reused: an agent's tool calls list_peers often, and 50 worktrees cost
// 100 git processes.
const filesFresh = 10 * time.Second

// changedFiles is the changed files of each of recs, from the cache when
// the agent's status has not changed since and, while it works, when
// they are fresh; the rest are read, four at a time.
func (p *Peers) changedFiles(recs []*state.Record) map[string]filesEntry {
	now := p.Now()
	out := make(map[string]filesEntry, len(recs))
	var todo []*state.Record
	p.mu.Lock()
	if p.files == nil {
		p.files = map[string]filesEntry{}
	}
	for _, r := range recs {
		e, ok := p.files[r.Name]
		if ok && e.since.Equal(r.StatusSince) && (r.Status != state.Working && r.Status != state.Starting || now.Sub(e.at) < filesFresh) {
			out[r.Name] = e
			continue
		}
		todo = append(todo, r)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, 4)
	for _, r := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			files, err := git.ChangedFiles(r.Path, baseOf(r))
			<-sem
			e := filesEntry{at: now, since: r.StatusSince, files: files, err: err}
			mu.Lock()
			out[r.Name] = e
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.mu.Lock()
	for _, r := range todo {
		p.files[r.Name] = out[r.Name]
	}
	p.mu.Unlock()
	return out
}

// baseOf is what a worktree's changes are counted against: the commit it
// started at when owt recorded one, else its base branch.
func baseOf(r *state.Record) string {
	if r.BaseCommit != "" {
		return r.BaseCommit
	}
	return r.Base
}

// Files is one peer's changed files as get_peer_files shows them.
type Files struct {
	Name    string           `json:"name"`
	Base    string           `json:"base"`
	Files   []git.FileChange `json:"files"`
	Overlap []string         `json:"overlap"`
	// Diff is the diff of the one file asked for.
	Diff string `json:"diff,omitempty"`
}

// PeerFiles reads name's changed files now, their overlap with mine, and
// the diff of file when one is named (a path it changed).
func (p *Peers) PeerFiles(name, file string) (Files, error) {
	me, recs, err := p.self()
	if err != nil {
		return Files{}, err
	}
	peer, err := findPeer(me, recs, name)
	if err != nil {
		return Files{}, err
	}
	files, err := git.ChangedFiles(peer.Path, baseOf(peer))
	if err != nil {
		return Files{}, fmt.Errorf("read %s's changes: %w", name, err)
	}
	mine, err := git.ChangedFiles(me.Path, baseOf(me))
	if err != nil {
		return Files{}, fmt.Errorf("read your own changes: %w", err)
	}
	out := Files{Name: peer.Name, Base: peer.Base, Files: files, Overlap: []string{}}
	if out.Files == nil {
		out.Files = []git.FileChange{}
	}
	have := map[string]bool{}
	for _, f := range mine {
		have[f.Path] = true
	}
	for _, f := range files {
		if have[f.Path] {
			out.Overlap = append(out.Overlap, f.Path)
		}
	}
	if file != "" {
		var which *git.FileChange
		for i := range files {
			if files[i].Path == file {
				which = &files[i]
			}
		}
		if which == nil {
			return Files{}, fmt.Errorf("%w: %s did not change %q", ErrBadText, name, file)
		}
		if out.Diff, err = git.FileDiff(peer.Path, baseOf(peer), *which, false); err != nil {
			return Files{}, fmt.Errorf("diff %s in %s: %w", file, name, err)
		}
	}
	return out, nil
}

// findPeer is the peer called name: another agent of my repository on my
// server.
func findPeer(me *state.Record, recs []*state.Record, name string) (*state.Record, error) {
	if name == me.Name {
		return nil, fmt.Errorf("%w: %q is you", ErrUnknownPeer, name)
	}
	for _, r := range others(me, recs) {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w %q (list_peers names them)", ErrUnknownPeer, name)
}
