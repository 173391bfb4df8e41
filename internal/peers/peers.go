// Package peers is what owt mcp gives an agent: the other agents of its
// repository on its own tmux server (their status, branch, task and
// changed files), messages to them through the outbox with a loop guard,
// the messages addressed to it, the shared note, and executor agents it
// spawns. An agent acts only as itself: its identity is its worktree's
// record, named by the OWT_NAME and OWT_REPO its tool's registration
// passes, and proved by the secret owt handed that registration alone
// (state.CheckMCPToken, on every call; see cli/mcpcmd).
package peers

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
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
	ErrSpawnLimit  = lifecycle.ErrSpawnLimit
	ErrNotChanged  = errors.New("not a changed file")
)

// Peers is one agent's view of its peers.
type Peers struct {
	W   *workspace.Workspace
	Box outbox.Box
	// Me is the agent's own worktree name.
	Me  string
	Now func() time.Time
	// DeliverWait is how long Send waits for a message to an idle peer
	// to be typed, so it can say delivered; 0 does not wait.
	DeliverWait time.Duration
	// Files caches the peers' changed files; a server keeps one for its
	// whole life, across the Peers it builds per call.
	Files *FileCache
	// ConfigErr is the repository's config problem, if any: W has the
	// defaults then, and Spawn refuses (the user's limits are unknown).
	ConfigErr error
}

// FileCache holds each peer's changed files as last read.
type FileCache struct {
	mu      sync.Mutex
	entries map[string]filesEntry // by peer name
	busy    bool                  // a background refresh is running
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
	return &Peers{W: w, Box: outbox.Default(), Me: name, Now: time.Now, DeliverWait: 5 * time.Second, Files: &FileCache{}}, nil
}

// Peer is one other agent as list_peers shows it.
type Peer struct {
	Name    string              `json:"name"`
	Tool    string              `json:"tool"`
	Status  string              `json:"status"`
	Branch  string              `json:"branch"`
	Task    untrusted.Untrusted `json:"task"`
	Spawner string              `json:"spawner,omitempty"`
	// Files it changed against its base; Overlap those I changed too;
	// FilesAge how many seconds ago they were read.
	Files    []string `json:"files"`
	Overlap  []string `json:"overlap"`
	FilesAge int      `json:"files_age"`
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
			Task: untrusted.From(r.Task), Spawner: r.Spawner, Files: []string{}, Overlap: []string{}}
		e := files[r.Name]
		pe.FilesAge = int(p.Now().Sub(e.at).Seconds())
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

// Changed files are read again in the background once older than
// filesFresh, and before answering once older than filesStale or when
// the agent's status changed: an agent's tool calls list_peers often,
// and 50 worktrees cost 100 git processes (a quarter of a second).
const (
	filesFresh = 10 * time.Second
	filesStale = time.Minute
)

// changedFiles is the changed files of each of recs: from the cache
// unless the agent's status changed since or the entry is older than
// filesStale (those are read now, four at a time); entries older than
// filesFresh are used and read again in the background for the next call.
func (p *Peers) changedFiles(recs []*state.Record) map[string]filesEntry {
	c := p.Files
	now := p.Now()
	out := make(map[string]filesEntry, len(recs))
	var todo, later []*state.Record
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]filesEntry{}
	}
	for _, r := range recs {
		e, ok := c.entries[r.Name]
		switch {
		case !ok || !e.since.Equal(r.StatusSince) || now.Sub(e.at) >= filesStale:
			todo = append(todo, r)
			continue
		case now.Sub(e.at) >= filesFresh:
			later = append(later, r)
		}
		out[r.Name] = e
	}
	refresh := len(later) > 0 && !c.busy
	if refresh {
		c.busy = true
	}
	c.mu.Unlock()
	for name, e := range c.read(todo, now) {
		out[name] = e
	}
	if refresh {
		go func() {
			c.read(later, p.Now())
			c.mu.Lock()
			c.busy = false
			c.mu.Unlock()
		}()
	}
	return out
}

// read reads the changed files of recs, four at a time, and keeps them.
func (c *FileCache) read(recs []*state.Record, now time.Time) map[string]filesEntry {
	out := make(map[string]filesEntry, len(recs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, 4)
	for _, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			files, err := git.ChangedFiles(r.Path, baseOf(r))
			<-sem
			mu.Lock()
			out[r.Name] = filesEntry{at: now, since: r.StatusSince, files: files, err: err}
			mu.Unlock()
		}()
	}
	wg.Wait()
	c.mu.Lock()
	for name, e := range out {
		c.entries[name] = e
	}
	c.mu.Unlock()
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
	// FilesCut says how many files past MaxPeerFiles were left out.
	FilesCut string `json:"files_cut,omitempty"`
	// Diff is the diff of the one file asked for, at most MaxPeerDiff
	// bytes of it; DiffCut says what was left out.
	Diff    string `json:"diff,omitempty"`
	DiffCut string `json:"diff_cut,omitempty"`
}

// A tool's answer goes into the model's context (twice: as text and as
// structured content): get_peer_files gives at most MaxPeerFiles files
// and MaxPeerDiff bytes of a diff, and says what it left out.
const (
	MaxPeerFiles = 500
	MaxPeerDiff  = 64 << 10
)

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
			return Files{}, fmt.Errorf("%w: %s did not change %q", ErrNotChanged, name, file)
		}
		if out.Diff, err = git.FileDiff(peer.Path, baseOf(peer), *which, false); err != nil {
			return Files{}, fmt.Errorf("diff %s in %s: %w", file, name, err)
		}
		if n := len(out.Diff); n > MaxPeerDiff {
			out.Diff = cutDiff(out.Diff, MaxPeerDiff)
			out.DiffCut = fmt.Sprintf("the diff is %d bytes; only its first %d are here, cut at a line: read %s in %s's worktree (%s) for the rest",
				n, len(out.Diff), file, name, peer.Path)
		}
	}
	if n := len(out.Files); n > MaxPeerFiles {
		out.Files = out.Files[:MaxPeerFiles]
		out.FilesCut = fmt.Sprintf("%s changed %d files; only the first %d are listed (overlap lists them all)", name, n, MaxPeerFiles)
	}
	return out, nil
}

// cutDiff is the first max bytes of d, cut at the end of a line (or of a
// whole UTF-8 character when the first line is longer).
func cutDiff(d string, max int) string {
	d = d[:max]
	if i := strings.LastIndexByte(d, '\n'); i > 0 {
		return d[:i+1]
	}
	return strings.ToValidUTF8(d, "")
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
