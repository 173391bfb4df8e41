// Package swarm is owt swarm: a coordinator and role workers (researcher,
// implementer, reviewer, tester) as agents in one worktree, each in its
// own window of that worktree's session.
//
// A worker is a record of its own, named HOST/ROLE (state.WorkerName),
// that shares its host worktree's path, branch and session and has its
// own pane and OWT_NAME: it is started by "owt _run" like any agent, so
// hooks, status, owt send, the outbox and owt mcp's peers work for it as
// for any agent. It owns no worktree: deleting or merging the host ends
// it, and owt swarm stop closes its window and forgets it, keeping the
// worktree and its commits.
//
// What a role may do is enforced by its tool where the tool can: the
// researcher and the reviewer run in the tool's read-only mode
// (agent.Profile.ReadOnly), and a tool without one is refused for them.
// The tester may change only test files: its edits, as its tool's hooks
// report them, are checked when the swarm stops, and others are reported
// as the host's NEEDS YOU.
package swarm

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// The roles of a swarm. The coordinator is always there; the others are
// chosen with --workers.
const (
	Coordinator = "coordinator"
	Researcher  = "researcher"
	Implementer = "implementer"
	Reviewer    = "reviewer"
	Tester      = "tester"
)

// Roles are the worker roles, in the order a swarm starts them.
var Roles = []string{Researcher, Implementer, Reviewer, Tester}

// readOnly reports whether the tool must keep role from changing files.
func readOnly(role string) bool { return role == Researcher || role == Reviewer }

// ErrBadOption marks a start refused for its options (an unknown role, a
// tool with no read-only mode, a host that cannot take a swarm) before
// anything changed.
var ErrBadOption = errors.New("bad option")

// ErrNoSwarm is returned for a worktree with no swarm.
var ErrNoSwarm = errors.New("no swarm")

func badOption(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadOption, fmt.Sprintf(format, args...))
}

// Swarms is a workspace seen by its swarms.
type Swarms struct{ W *workspace.Workspace }

// Of is the swarms of the worktrees of w (Open, OpenRoot).
func Of(w *workspace.Workspace) *Swarms { return &Swarms{W: w} }

// StartOptions are the inputs of owt swarm start.
type StartOptions struct {
	Goal    string
	Name    string   // an existing worktree to swarm in; a new one from the goal when empty
	Workers []string // roles; Roles when empty
	Tool    string   // [agent] tool when empty
	From    string   // where owt was run: a new worktree's base is its branch
}

// Swarm is one worktree's swarm: its host and its workers, coordinator
// first.
type Swarm struct {
	Host    string          `json:"host"`
	Goal    string          `json:"goal"`
	Path    string          `json:"path"`
	Branch  string          `json:"branch"`
	Session string          `json:"session"`
	Workers []*state.Record `json:"-"`
	// Lost names the workers whose window is gone with their host's
	// session (the tmux server went down): their records still say what
	// they last were, but no agent runs there.
	Lost map[string]bool `json:"-"`
}

// WindowGone is why a lost worker takes nothing: owt attach brings back
// only a worktree's own agent, never a worker's window.
func WindowGone(host string) string {
	return "its window is gone with its host's session: 'owt swarm stop " + host + "' ends the swarm, and 'owt swarm start' starts a new one"
}

// ParseWorkers reads --workers: roles separated by commas, each known and
// named once.
func ParseWorkers(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return slices.Clone(Roles), nil
	}
	var roles []string
	for _, r := range strings.Split(list, ",") {
		r = strings.ToLower(strings.TrimSpace(r))
		switch {
		case r == "":
			continue
		case r == Coordinator:
			return nil, badOption("the coordinator is always there: --workers names the others (%s)", strings.Join(Roles, ","))
		case !slices.Contains(Roles, r):
			return nil, badOption("unknown role %q (roles: %s)", r, strings.Join(Roles, ", "))
		case slices.Contains(roles, r):
			return nil, badOption("role %q is named twice", r)
		}
		roles = append(roles, r)
	}
	if len(roles) == 0 {
		return nil, badOption("--workers names no role (roles: %s)", strings.Join(Roles, ", "))
	}
	return roles, nil
}

// Start starts a swarm: in the worktree o.Name (or a new one made from the
// goal as owt new would, with a shell in its first window), a coordinator
// and one worker per role, each in its own window. Nothing is left behind
// when it fails: no window, no record, and no worktree it made.
func (s *Swarms) Start(o StartOptions) (Swarm, error) {
	goal := strings.TrimSpace(o.Goal)
	if goal == "" {
		return Swarm{}, badOption("empty goal: say what the swarm should do, e.g. owt swarm start \"add rate limiting to the API\"")
	}
	roles := o.Workers
	if len(roles) == 0 {
		roles = Roles
	}
	tool := o.Tool
	if tool == "" {
		tool = s.W.Config.Agent.Tool
	}
	prof, err := agent.Resolve(s.W.Tools, tool)
	if err != nil {
		return Swarm{}, err
	}
	for _, r := range roles {
		if readOnly(r) && prof.ReadOnly == nil {
			return Swarm{}, badOption("tool %q has no read-only mode owt can enforce, so it cannot be a swarm's %s: pick another --tool (claude, codex, gemini, opencode) or leave the role out (--workers)", prof.Name, r)
		}
	}
	if err := s.W.Tmux.Available(); err != nil {
		return Swarm{}, err
	}
	if slices.Contains(roles, Tester) && !prof.ReportsEdits() {
		s.W.Warnf("the tester's edits cannot be checked with %s (its hooks do not name the files it writes): review what it changes outside tests yourself, or give the swarm a tool whose hooks do (claude, gemini)", prof.Name)
	}

	host, made, err := s.host(o, goal)
	if err != nil {
		return Swarm{}, err
	}
	undoHost := func() {
		if made {
			if err := lifecycle.Of(s.W).Delete(host.Name, lifecycle.DeleteOptions{Force: true}); err != nil {
				s.W.Warnf("could not remove the worktree %s made for the swarm: %v", host.Name, err)
			}
		}
	}
	var undoFiles []func()
	undo := func() {
		for i := len(undoFiles) - 1; i >= 0; i-- {
			undoFiles[i]()
		}
		undoHost()
	}
	if err := s.installHooks(host, prof, func(f func()) { undoFiles = append(undoFiles, f) }); err != nil {
		undo()
		return Swarm{}, err
	}
	// The members start with what earlier agents learned, for the goal,
	// in the instructions file of their tool (they share the worktree).
	if s.W.Config.Memory.InjectTokens > 0 {
		memory.Inject(s.W.Self, s.W.Repo.Root, host.Name, goal, prof.Name, false).Say(s.W.Warnf, s.W.Logf)
	}
	workers, err := s.startWorkers(host, prof.Name, goal, roles)
	if err != nil {
		undo()
		return Swarm{}, err
	}
	_ = status.PublishSummaryLocked(s.W.Tmux)
	return swarmOf(host, workers), nil
}

// installHooks merges the tool's hook settings into the host's worktree,
// unless they are there (its own agent uses that tool's file): the
// workers' hooks report their status, and the tester's edits. The file is
// the host's, recorded on its record like owt new's.
func (s *Swarms) installHooks(host *state.Record, prof agent.Profile, push func(func())) error {
	spec, ok := agent.HookFiles[prof.Hooks]
	if !ok {
		return nil
	}
	for _, hf := range host.HookFiles {
		if hf.Path == spec.Path {
			return nil
		}
	}
	if err := hook.Of(s.W).Install(host, prof, push); err != nil {
		return fmt.Errorf("install %s hooks in %s: %w", prof.Name, host.Path, err)
	}
	return nil
}

// host is the worktree the swarm runs in: the one named, which must be a
// live worktree with no swarm, or a new one made from the goal (made).
func (s *Swarms) host(o StartOptions, goal string) (*state.Record, bool, error) {
	if o.Name == "" {
		rec, err := lifecycle.Of(s.W).Create(lifecycle.CreateOptions{Task: goal, NoAgent: true, From: o.From})
		if err != nil {
			return nil, false, fmt.Errorf("create the swarm's worktree: %w", err)
		}
		return rec, true, nil
	}
	if strings.Contains(o.Name, "/") {
		return nil, false, badOption("%s is a swarm worker; -w takes a worktree (see 'owt list')", o.Name)
	}
	rec, err := s.W.Get(o.Name)
	if err != nil {
		return nil, false, err
	}
	recs, err := s.W.Records()
	if err != nil {
		return nil, false, err
	}
	for _, r := range recs {
		if r.WorkerOf(rec.Name) {
			return nil, false, badOption("%s already has a swarm ('owt swarm stop %s' ends it)", rec.Name, rec.Name)
		}
	}
	where, err := s.W.Locate(rec)
	if err != nil {
		return nil, false, err
	}
	switch where.Place {
	case workspace.Elsewhere:
		return nil, false, fmt.Errorf("%s %w (%s): run owt swarm there", rec.Name, workspace.ErrOtherServer, where.Socket)
	case workspace.Gone:
		return nil, false, fmt.Errorf("%s has no tmux session: 'owt attach %s' recreates it, then start the swarm", rec.Name, rec.Name)
	}
	return rec, false, nil
}

// startWorkers writes the workers' records, then opens a window for each
// running "owt _run" as HOST/ROLE. On failure the windows opened are
// closed and the records forgotten.
func (s *Swarms) startWorkers(host *state.Record, tool, goal string, roles []string) ([]*state.Record, error) {
	start, err := s.W.Repo.ResolveCommit(git.BranchRef(host.Branch))
	if err != nil {
		return nil, fmt.Errorf("read the tip of %s: %w", host.Branch, err)
	}
	members := append([]string{Coordinator}, roles...)
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = state.WorkerName(host.Name, m)
	}
	now := s.W.Now()
	var recs []*state.Record
	err = s.W.Store.Update(func(f *state.File) error {
		h, ok := f.Records[host.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, host.Name)
		}
		recs = recs[:0]
		for i, m := range members {
			if _, taken := f.Records[names[i]]; taken {
				return badOption("%s exists already ('owt swarm stop %s' ends the swarm)", names[i], host.Name)
			}
			r := &state.Record{
				Name: names[i], Life: state.NewLife(), Repo: h.Repo, Branch: h.Branch, Base: h.Base, BaseCommit: h.BaseCommit,
				Path: h.Path, Session: h.Session, SessionID: h.SessionID, Socket: h.Socket, Server: h.Server,
				Port: h.Port, Tool: tool, Task: prompt(m, goal, host, members),
				// One after the other, so they list in the order of roles.
				Status: state.Starting, StatusSince: now, Source: state.FromOwt, CreatedAt: now.Add(time.Duration(i) * time.Microsecond),
				ReadOnly: readOnly(m), Swarm: &state.SwarmRole{Host: h.Name, Role: m, Goal: goal, Start: start},
				NoSetup: true,
			}
			f.Records[r.Name] = r
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var panes []string
	undo := func() {
		for _, p := range panes {
			_ = s.W.Tmux.KillWindow(p)
		}
		_ = s.forget(names)
	}
	for _, r := range recs {
		pane, err := s.W.Tmux.NewWindow(tmux.NewWindow{
			Session: host.SessionID, Name: r.Swarm.Role, Dir: host.Path,
			// Its own life, not the host session's (which the window
			// would inherit): the runner starts only the agent of its life.
			Env: map[string]string{"OWT_NAME": r.Name, "OWT_REPO": r.Repo, "OWT_PORT": strconv.Itoa(r.Port), state.LifeEnv: r.Life},
			// The runner reads the record it names: its task, tool, mode.
			Argv: []string{s.W.Self, "_run"},
		})
		if err != nil {
			undo()
			return nil, fmt.Errorf("open the window of %s: %w", r.Name, err)
		}
		panes = append(panes, pane)
		// The mark lets a state file rebuilt after corruption know it.
		if err := s.W.Tmux.MarkWindow(pane, tmux.WorkerOption, workspace.WorkerMark(r)); err != nil {
			undo()
			return nil, fmt.Errorf("mark the window of %s: %w", r.Name, err)
		}
		if err := s.setPane(r, pane); err != nil {
			undo()
			return nil, err
		}
	}
	s.W.Logf("swarm in %s: %s", host.Name, strings.Join(names, ", "))
	return recs, nil
}

// setPane records the pane a worker runs in.
func (s *Swarms) setPane(r *state.Record, pane string) error {
	r.Pane = pane
	err := s.W.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[r.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, r.Name)
		}
		cur.Pane = pane
		return nil
	})
	if err != nil {
		return fmt.Errorf("record the pane of %s: %w", r.Name, err)
	}
	return nil
}

// forget drops the records called names, and their Claude --mcp-config
// files.
func (s *Swarms) forget(names []string) error {
	var gone []*state.Record
	err := s.W.Store.Update(func(f *state.File) error {
		gone = gone[:0]
		for _, n := range names {
			if r := f.Records[n]; r != nil {
				gone = append(gone, r)
			}
			delete(f.Records, n)
		}
		return nil
	})
	if err == nil {
		for _, n := range names {
			state.RemoveMCPFiles(s.W.Repo.Root, n)
		}
		lifecycle.AbandonMail(gone, s.W.Logf)
	}
	return err
}

// swarmOf is host's swarm made of workers.
func swarmOf(host *state.Record, workers []*state.Record) Swarm {
	sw := Swarm{Host: host.Name, Path: host.Path, Branch: host.Branch, Session: host.Session, Workers: workers}
	if len(workers) > 0 {
		sw.Goal = workers[0].Swarm.Goal
	}
	return sw
}

// List is every swarm of the repository, oldest host first.
func (s *Swarms) List() ([]Swarm, error) {
	recs, err := s.W.Records()
	if err != nil {
		return nil, err
	}
	hosts := map[string]*state.Record{}
	for _, r := range recs {
		if r.Swarm == nil {
			hosts[r.Name] = r
		}
	}
	var out []Swarm
	at := map[string]int{}
	for _, r := range recs { // sorted: a host's workers follow it
		if r.Swarm == nil {
			continue
		}
		i, ok := at[r.Swarm.Host]
		if !ok {
			h := hosts[r.Swarm.Host]
			if h == nil {
				h = &state.Record{Name: r.Swarm.Host, Path: r.Path, Branch: r.Branch, Session: r.Session}
			}
			i = len(out)
			at[r.Swarm.Host] = i
			out = append(out, swarmOf(h, nil))
		}
		out[i].Workers = append(out[i].Workers, r)
		if out[i].Goal == "" {
			out[i].Goal = r.Swarm.Goal
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	loc, err := workspace.ListLocator(s.W.Tmux)
	if err != nil {
		return nil, err
	}
	for i := range out {
		for _, r := range out[i].Workers {
			if loc.Locate(r).Place == workspace.Gone {
				if out[i].Lost == nil {
					out[i].Lost = map[string]bool{}
				}
				out[i].Lost[r.Name] = true
			}
		}
	}
	return out, nil
}

// Get is the swarm of the worktree called host (or of the worker's host,
// given a worker's name).
func (s *Swarms) Get(host string) (Swarm, error) {
	if h, _, ok := strings.Cut(host, "/"); ok {
		host = h
	}
	all, err := s.List()
	if err != nil {
		return Swarm{}, err
	}
	for _, sw := range all {
		if sw.Host == host {
			return sw, nil
		}
	}
	if _, err := s.W.Get(host); err != nil {
		return Swarm{}, err
	}
	return Swarm{}, fmt.Errorf("%w in %s ('owt swarm start GOAL -w %s' starts one)", ErrNoSwarm, host, host)
}
