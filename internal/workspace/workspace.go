// Package workspace holds owt's core use cases: create, list, switch, send
// and delete a worktree with its agent. It composes git, tmux, state, agent
// and setup, and it is the one place that knows the order of the steps and
// how to roll them back.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// ErrUnknownName is returned for a name with no record in this repo.
var ErrUnknownName = errors.New("no such worktree")

// Workspace is one repository as owt manages it.
type Workspace struct {
	Repo   git.Repo
	Config config.Config
	Tools  map[string]agent.Profile
	Store  *state.Store
	Tmux   *tmux.Client
	// Self is the owt executable, run in new sessions and by hooks.
	Self string
	// Log receives progress lines ("created worktree …"); may be io.Discard.
	Log io.Writer
	// Warn receives warnings the user must see even when progress is
	// quiet (--json); nil means Log.
	Warn io.Writer
	Now  func() time.Time
}

// Open finds the repository containing dir and loads its config and state.
func Open(dir string, tm *tmux.Client) (*Workspace, error) {
	repo, err := git.FindRepo(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(repo.Root)
	if err != nil {
		return nil, configError(err)
	}
	tools, err := agent.Profiles(cfg)
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
		Repo: repo, Config: cfg, Tools: tools, Tmux: tm, Self: self,
		Store: state.ForRepo(repo.Root), Log: io.Discard, Now: time.Now,
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
func (w *Workspace) Get(name string) (*state.Record, error) {
	f, err := w.Store.Load()
	if err != nil {
		return nil, err
	}
	r, ok := f.Records[name]
	if !ok {
		return nil, fmt.Errorf("%w %q in %s (see 'owt list')", ErrUnknownName, name, w.Repo.Root)
	}
	return r, nil
}

// Records returns every record of the repo, oldest first.
func (w *Workspace) Records() ([]*state.Record, error) {
	f, err := w.Store.Load()
	if err != nil {
		return nil, err
	}
	return f.Sorted(), nil
}

// rebuild recreates records from git worktrees under owt's worktree folder
// and from live tmux sessions, after the state file was found corrupt.
func (w *Workspace) rebuild(f *state.File) error {
	wts, err := w.Repo.Worktrees()
	if err != nil {
		return err
	}
	sessions, _ := w.Tmux.Sessions()
	now := w.Now()
	for _, wt := range wts {
		if wt.Path == w.Repo.Root || wt.Bare {
			continue
		}
		name := filepath.Base(wt.Path)
		if w.worktreePath(name) != wt.Path {
			continue // not made by owt
		}
		rec := &state.Record{
			Name: name, Repo: w.Repo.Root, Branch: wt.Branch, Path: wt.Path,
			Session: w.sessionName(name), CreatedAt: now, Recovered: true,
			Status: state.Exited, StatusSince: now, Source: state.FromOwt,
		}
		rec.Base, _ = git.CurrentBranch(w.Repo.Root)
		for _, s := range sessions {
			if s.Name == rec.Session {
				rec.SessionID = s.ID
				rec.Status = state.Idle
			}
		}
		f.Records[name] = rec
	}
	return nil
}

// worktreePath is where the worktree called name lives.
func (w *Workspace) worktreePath(name string) string {
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

// sessionName is the tmux session of the worktree called name: the repo
// and the name, readable in a session list.
func (w *Workspace) sessionName(name string) string {
	return sessionPart(w.Repo.Name()) + "/" + sessionPart(name)
}

func (w *Workspace) logf(format string, args ...any) {
	fmt.Fprintf(w.Log, format+"\n", args...)
}
