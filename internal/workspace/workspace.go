// Package workspace is one repository as owt manages it (Open, OpenRoot):
// its records and their status changes (the Ledger), the paths and names
// of its worktrees and sessions, locating a record's session and the
// rebuild of a corrupt state file. The use cases (lifecycle, status,
// send, notes, the pane runner …) take a *Workspace or a *Ledger.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/setup"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Workspace is one repository as owt manages it: its records (Ledger)
// with the config, the tool profiles and the owt executable that creating,
// restarting and deleting need. Build one with Open or OpenRoot only: they
// set every field, so every method is safe on what they return. Code that
// needs only records and tmux (a hook, a publisher) takes a *Ledger.
type Workspace struct {
	Ledger
	Config config.Config
	Tools  map[string]agent.Profile
	// Self is the owt executable, run in new sessions and by hooks.
	Self string
	// Log receives progress lines ("created worktree …"); may be io.Discard.
	Log io.Writer
	// Warn receives warnings the user must see even when progress is
	// quiet (--json); nil means Log.
	Warn io.Writer

	classifiers classifierCache
}

// Ledger is the part of a workspace the hot paths need: one repository's
// records and the tmux server its sessions live on. It loads no config,
// knows no tool and runs no git, so it is cheap to build: the hook of
// every agent turn and every "owt _publish" builds one (NewLedger).
type Ledger struct {
	Repo  git.Repo
	Store *state.Store
	Tmux  *tmux.Client
	Now   func() time.Time
}

// NewLedger is the ledger of the repository whose main checkout is root.
// Its store does not rebuild a corrupt state file (only a Workspace knows
// how).
func NewLedger(root string, tm *tmux.Client) *Ledger {
	return &Ledger{Repo: git.Repo{Root: root}, Store: state.ForRepo(root), Tmux: tm, Now: time.Now}
}

// Open finds the repository containing dir and loads its config and state.
func Open(dir string, tm *tmux.Client) (*Workspace, error) {
	repo, err := git.FindRepo(dir)
	if err != nil {
		return nil, err
	}
	return OpenRepo(repo, tm)
}

// OpenRepo is Open of a repository already found (git.FindRepo).
func OpenRepo(repo git.Repo, tm *tmux.Client) (*Workspace, error) {
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return nil, configError(err)
	}
	tools, err := Tools(cfg)
	if err != nil {
		return nil, configError(locate(repo.Root, err))
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find owt executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	w := &Workspace{
		Ledger: Ledger{Repo: repo, Store: state.ForRepo(repo.Root), Tmux: tm, Now: time.Now},
		Config: cfg, Tools: tools, Self: self, Log: io.Discard,
	}
	w.Store.Rebuild = w.rebuild
	return w, nil
}

// locate names the config file behind each problem a check on the merged
// config found (a tool's profile knows its key, not its file).
func locate(repoRoot string, err error) error {
	var ps config.Problems
	if errors.As(err, &ps) {
		return config.Locate(repoRoot, ps)
	}
	return err
}

// configError turns several config problems into one line that says where
// to look for the rest.
func configError(err error) error {
	var ps config.Problems
	if errors.As(err, &ps) && len(ps) > 1 {
		return fmt.Errorf("config: %s (and %d more; run 'owt config validate')", ps[0].Error(), len(ps)-1)
	}
	return fmt.Errorf("config: %w", err)
}

// Get returns the record called name.
func (w *Ledger) Get(name string) (*state.Record, error) {
	f, err := w.Store.Load()
	if err != nil {
		return nil, err
	}
	r, ok := f.Records[name]
	if !ok {
		return nil, fmt.Errorf("%w %q in %s (see 'owt list')", state.ErrUnknownName, name, w.Repo.Root)
	}
	return r, nil
}

// Records returns every record of the repo, oldest first.
func (w *Ledger) Records() ([]*state.Record, error) {
	f, err := w.Store.Load()
	if err != nil {
		return nil, err
	}
	return f.Sorted(), nil
}

// rebuild recreates records after the state file was found corrupt, from
// what git and tmux still know: each worktree in owt's folder and its
// branch; the session made for it, found by owt's options on it
// (@owt-name, @owt-repo), with its tool, base and port block (@owt-tool,
// @owt-base, @owt-port, else the session's OWT_PORT), its server and the
// pane the agent runs in. The task is lost with the file (Recovered).
func (w *Workspace) rebuild(f *state.File) error {
	wts, err := w.Repo.Worktrees()
	if err != nil {
		return err
	}
	workers, _ := w.Tmux.WindowMarks(tmux.WorkerOption)
	found := w.owtSessionsByName(workers)
	head, _ := git.CurrentBranch(w.Repo.Root)
	now := w.Now()
	for _, wt := range wts {
		if wt.Path == w.Repo.Root || wt.Bare {
			continue
		}
		name := filepath.Base(wt.Path)
		if w.WorktreePath(name) != wt.Path {
			continue // not made by owt
		}
		if err := state.ValidateName(name); err != nil {
			// owt never makes such a folder (someone's own worktree in
			// owt's folder): a record named so could not be told from an
			// agent on a host (NAME@HOST), or be handled at all.
			w.Warnf("left out of the rebuilt state: the worktree %s (%v)", wt.Path, err)
			continue
		}
		rec := &state.Record{
			Name: name, Repo: w.Repo.Root, Branch: wt.Branch, Base: head, Path: wt.Path,
			Session: w.SessionName(name), CreatedAt: now, Recovered: true, NoAgent: true,
			Status: state.Exited, StatusSince: now, Source: state.FromOwt,
		}
		if s, ok := found[name]; ok {
			s.apply(rec)
		}
		rec.Copied = w.CopiesIn(wt.Path)
		f.Records[name] = rec
	}
	w.rebuildWorkers(f, workers)
	return nil
}

// CopiesIn lists the files of a worktree that owt would have copied in
// ([worktree] copy, ignored by git): a rebuilt record counts them as owt's
// copies, so an edited .env stays work that delete refuses to throw away.
func (w *Workspace) CopiesIn(dir string) []string {
	u, err := (git.Repo{Root: dir}).UnversionedFiles()
	if err != nil {
		return nil
	}
	copied, _ := setup.MatchCopy(u.Ignored, w.Config.Worktree.Copy)
	return copied
}

// foundSession is a live session of this repo as its owt options describe it.
type foundSession struct {
	tmux.Session
	opts   map[string]string
	pane   string // the pane started with "owt _run", else the first one
	runner bool   // a pane of it was started with "owt _run"
	port   int
	socket string
}

// in reports whether the session is the one owt made for the worktree at
// dir, not merely one carrying its options (anyone can set those): it
// was started there, and its pane runs owt's runner.
func (s foundSession) in(dir string) bool {
	return s.Path == dir && s.runner
}

func (s foundSession) apply(r *state.Record) {
	r.Session, r.SessionID, r.Server, r.Socket, r.Pane = s.Name, s.ID, s.Server, s.socket, s.pane
	r.Port = s.port
	if b := s.opts["@owt-base"]; b != "" {
		r.Base = b
	}
	if t := s.opts["@owt-tool"]; t != "" {
		r.Tool, r.NoAgent = t, false
	}
	r.Life = s.opts["@owt-life"]
	if sp := s.opts["@owt-spawner"]; sp != "" {
		r.Spawner = sp
		r.SpawnDepth, _ = strconv.Atoi(s.opts["@owt-spawn-depth"])
		if r.SpawnDepth < 1 {
			r.SpawnDepth = 1 // spawned, so at least an executor
		}
	}
	// The status the session last showed (@owt-status, published with
	// every change): an agent that had exited, hit its usage limit or was
	// waiting for the user is not called idle because the record was lost.
	// Otherwise idle: the monitor reads the screen and puts it right.
	switch st := state.Status(s.opts["@owt-status"]); st {
	case state.Exited, state.Waiting, state.Limited:
		r.Status = st
		if st == state.Limited {
			r.Limit = &state.Limit{} // its words and reset come back from the screen
		}
	default:
		r.Status = state.Idle
	}
}

// owtSessionsByName finds this server's sessions that owt's options say are
// this repo's worktrees, by worktree name.
func (w *Workspace) owtSessionsByName(workers map[string][2]string) map[string]foundSession {
	sessions, err := w.Tmux.Sessions()
	if err != nil || len(sessions) == 0 {
		return nil
	}
	opts, err := w.Tmux.SessionOptions("@owt-name", "@owt-repo", "@owt-tool", "@owt-base", "@owt-port", "@owt-spawner", "@owt-spawn-depth", "@owt-status", "@owt-life")
	if err != nil {
		return nil
	}
	panes, _ := w.Tmux.Panes()
	socket := w.Tmux.ServerSocket()
	out := map[string]foundSession{}
	for _, s := range sessions {
		o := opts[s.ID]
		if o == nil || o["@owt-repo"] != w.Repo.Root || o["@owt-name"] == "" {
			continue
		}
		fs := foundSession{Session: s, opts: o, socket: socket}
		for _, p := range panes {
			if _, worker := workers[p.ID]; p.SessionID != s.ID || worker {
				continue // a swarm worker's pane is not the worktree's
			}
			if fs.pane == "" || strings.Contains(p.StartCommand, "_run") {
				fs.pane = p.ID
				fs.runner = fs.runner || strings.Contains(p.StartCommand, "_run")
			}
		}
		fs.port, _ = strconv.Atoi(o["@owt-port"])
		if fs.port == 0 {
			if v, err := w.Tmux.SessionEnv(s.ID, "OWT_PORT"); err == nil {
				fs.port, _ = strconv.Atoi(v)
			}
		}
		if fs.in(w.WorktreePath(o["@owt-name"])) {
			out[o["@owt-name"]] = fs // a session merely carrying the options is not it
		}
	}
	return out
}

// WorktreePath is where the worktree called name lives.
func (w *Workspace) WorktreePath(name string) string {
	p := strings.ReplaceAll(w.Config.Worktree.Dir, "{repo}", w.Repo.Name())
	p = strings.ReplaceAll(p, "{name}", name)
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Repo.Root, p)
	}
	return filepath.Clean(p)
}

// SessionName is the tmux session of the worktree called name: the repo
// and the name, readable in a session list.
func (w *Workspace) SessionName(name string) string {
	return SessionPart(w.Repo.Name()) + "/" + SessionPart(name)
}

func (w *Workspace) Logf(format string, args ...any) {
	fmt.Fprintf(w.Log, format+"\n", args...)
}

// Warnf tells the user something they must see (Warn, else Log).
func (w *Workspace) Warnf(format string, args ...any) {
	out := w.Warn
	if out == nil {
		out = w.Log
	}
	fmt.Fprintf(out, "owt: "+format+"\n", args...)
}

// Select returns the records to act on: the named ones (each must exist),
// or with all every record whose status is in statuses (any when empty).
func (w *Ledger) Select(names []string, all bool, statuses []state.Status) ([]*state.Record, error) {
	recs, err := w.Records()
	if err != nil {
		return nil, err
	}
	if !all && len(statuses) == 0 {
		var out []*state.Record
		for _, n := range names {
			r, err := w.Get(n)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	var out []*state.Record
	for _, r := range recs {
		if len(statuses) == 0 || containsStatus(statuses, r.Status) {
			out = append(out, r)
		}
	}
	return out, nil
}

func containsStatus(ss []state.Status, s state.Status) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
