package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/setup"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// CreateOptions are the inputs of owt new.
type CreateOptions struct {
	Task    string
	Name    string // explicit worktree name; derived from Task when empty
	Branch  string // explicit branch; derived when empty
	Base    string // base branch (a local one); the current branch when empty
	Tool    string // tool name; [agent] tool when empty
	NoAgent bool   // a shell instead of an agent
	Plan    bool   // the tool's plan / read-only mode
	NoSetup bool   // skip dependency install and setup commands
	// From is the directory owt was run in; its branch is the default base.
	From string
	// StartAt, when set, is the commit the new branch starts at instead of
	// Base's tip (a run's child starts from its parents' merged work).
	// Base is still recorded: the branch the work came from and merges
	// into; StartAt is recorded as the base commit.
	StartAt string
	// Spawner and SpawnDepth are recorded as they are: the agent that
	// spawned this one through owt mcp, and how deep.
	Spawner    string
	SpawnDepth int
	// Template shapes the first prompt: a template's name, "auto" to
	// guess one from the task, "" or "none" for the bare task.
	Template string
	// MaxAgents, when above 0, is the most agents this machine may run,
	// every repository's (a host's max_agents, sent by the owt that
	// starts an agent there): checked while the name is reserved, under
	// the lock every owt new here takes, so owt new calls at once cannot
	// all pass it.
	MaxAgents int
	// InRun says the agent is a task of an owt run (the session protocol
	// ends with owt done).
	InRun bool
	// Issue is a GitHub issue whose title, body and comments are the
	// task (before Task's text, if any), recorded so owt pr closes it.
	Issue int
	// ReadIssue is the issue Task was read from already, elsewhere (owt
	// new --host --issue reads it on the user's machine): recorded as
	// Issue, so owt pr closes it, and not read again.
	ReadIssue int
	// InPlace starts the agent in the checkout owt was run in (From) on
	// a new branch switched to there, instead of in a new worktree.
	InPlace bool
	// Ahead, when set, are Create's first reads already under way (owt
	// new starts them before it opens the repository); else Create
	// starts its own.
	Ahead *ReadAhead
}

// ErrEmptyTask is returned when there is nothing to tell the agent.
// ErrBadOption marks an option of owt new that is wrong in itself (an
// invalid name or branch, a base that does not exist), as opposed to a
// failure of the world: the CLI calls it bad usage.
var ErrBadOption = errors.New("bad option")

var ErrEmptyTask = errors.New("empty task: say what the agent should do, e.g. owt new \"fix the login redirect\"")

// testHookAfterStep, when set by this package's tests, can fail Create right
// after a named step so every rollback path is exercised against real git
// and tmux. It is nil in owt itself.
var testHookAfterStep func(step string) error

func afterStep(step string) error {
	if testHookAfterStep != nil {
		return testHookAfterStep(step)
	}
	return nil
}

// undo is a stack of rollback actions run in reverse on failure.
type undo []func()

func (u *undo) push(f func()) { *u = append(*u, f) }

func (u undo) run() {
	for i := len(u) - 1; i >= 0; i-- {
		u[i]()
	}
}

// Create makes a branch, a worktree, copies files into it, and starts a tmux
// session running the setup and the agent. Any failure undoes every step
// taken before it: no branch, worktree, session or record is left behind.
//
// Its steps, in order, each pushing its own undo: reserve the name
// (record, create lock), make the checkout (worktree and branch, or the
// in-place switch), bring in the files (copies, links, hooks, the first
// prompt), start the session, save the record.
func (w *Worktrees) Create(o CreateOptions) (*state.Record, error) {
	c, err := w.planCreate(o)
	if err != nil {
		return nil, err
	}
	defer c.finish()
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"reserve", c.reserveName},
		{"worktree", c.makeCheckout},
		{"files", c.bringIn},
		{"session", c.startSession},
		{"record", c.saveRecord},
	} {
		if err := step.do(); err != nil {
			return nil, err
		}
		if err := afterStep(step.name); err != nil {
			return nil, err
		}
	}
	if _, err := c.durable(); err != nil {
		return nil, fmt.Errorf("save record %s: %w", c.rec.Name, err)
	}
	c.ok = true
	w.startMonitor()
	return c.rec, nil
}

// creation is one Create under way: what was chosen before anything
// changed (planCreate), what each step made, and the undo stack that a
// failure runs.
type creation struct {
	w          *Worktrees
	o          CreateOptions
	task       string
	tpl        templates.Chosen
	prof       agent.Profile
	checkout   string // the user's checkout, for an in-place agent
	base       string
	baseCommit string
	start      string // where the new branch starts
	from       string // what it starts from, as the log says it
	survey     func() (tmux.Survey, error)
	branches   func() (map[string]string, error)

	rb        undo
	held      *state.Held // the create lock of the reserved name
	ok        bool
	published bool // the session set a summary counting this agent
	rec       *state.Record
	sv        tmux.Survey
	copied    []string
	created   tmux.Created

	// Reads and writes started in the background, waited for when needed.
	durable     func() (struct{}, error)
	unversioned func() (git.Unversioned, error)
	summary     func() (map[string]string, error)
	marked      func() (struct{}, error)
	branchAt    func() (string, error) // the commit the new branch starts at
}

// planCreate checks o and resolves what the agent will be (task,
// template, tool, base, start commit) before anything changes, and
// starts the first reads (tmux's sessions, git's ref names).
func (w *Worktrees) planCreate(o CreateOptions) (*creation, error) {
	if o.Issue > 0 {
		if err := w.fromIssue(&o); err != nil {
			return nil, err
		}
	}
	c := &creation{w: w, task: strings.TrimSpace(o.Task)}
	if c.task == "" && (!o.NoAgent || (o.Name == "" && o.Branch == "")) {
		return nil, ErrEmptyTask
	}
	if o.NoAgent && o.Tool != "" {
		return nil, errors.New("--tool and --no-agent cannot be used together")
	}
	if o.NoAgent && o.Plan {
		return nil, errors.New("--plan needs an agent; it cannot be used with --no-agent")
	}
	var err error
	if c.tpl, err = w.chooseTemplate(&o, c.task); err != nil {
		return nil, err
	}
	if !o.NoAgent {
		if c.prof, err = w.resolveTool(&o, c.tpl); err != nil {
			return nil, err
		}
	}
	if err := checkInPlaceStart(o); err != nil {
		return nil, err
	}
	if err := w.Tmux.Available(); err != nil {
		return nil, err
	}
	if o.InPlace {
		if c.checkout, err = w.inPlaceCheckout(o); err != nil {
			return nil, err
		}
	}
	if err := w.checkNames(o); err != nil {
		return nil, err
	}
	// These reads are independent: run them while the base is resolved.
	c.survey, c.branches = w.firstReads(o.Ahead)
	if err := c.chooseStart(o); err != nil {
		return nil, err
	}
	c.o = o
	return c, nil
}

// resolveTool is the agent's tool profile ([agent] tool when o names
// none), with plan mode as o or the template asks.
func (w *Worktrees) resolveTool(o *CreateOptions, tpl templates.Chosen) (agent.Profile, error) {
	tool := o.Tool
	if tool == "" {
		tool = w.Config.Agent.Tool
	}
	prof, err := agent.Resolve(w.Tools, tool)
	if err != nil {
		return prof, err
	}
	if o.Plan && prof.Plan == nil {
		return prof, badOption(fmt.Errorf("tool %q has no plan mode", prof.Name))
	}
	if !tpl.None() && !tpl.Guessed && tpl.Plan && prof.Plan != nil {
		o.Plan = true // the template's default
	}
	return prof, nil
}

// chooseStart resolves the base branch and the commit the new branch
// starts at.
func (c *creation) chooseStart(o CreateOptions) error {
	w := c.w
	base, err := w.defaultBase(o)
	if err != nil {
		return err
	}
	c.base = base
	// An explicit base is checked before anything changes; the current
	// branch exists by definition, and its commit is read off the
	// critical path below. A start commit needs no base: it is the
	// worktree's start (a run's child starts at its parent's tip even
	// when the base branch is gone).
	if o.Base != "" && o.StartAt == "" {
		if c.baseCommit, err = w.checkBase(base); err != nil {
			return badOption(err)
		}
	}
	if c.baseCommit == "" {
		c.baseCommit = w.headCommit(o.Ahead, o)
	}
	// The base is a local branch: named in full, so a tag or remote of
	// the same name is never where the worktree starts. Its commit, when
	// read already, is where the branch starts: the one recorded as its
	// base, whatever the base branch does meanwhile (and git need not be
	// asked again where the new branch is).
	c.start, c.from = git.BranchRef(base), base
	if c.baseCommit != "" && !o.InPlace {
		c.start = c.baseCommit
	}
	if o.StartAt != "" {
		if c.baseCommit, err = w.Repo.ResolveCommit(o.StartAt); err != nil {
			return fmt.Errorf("unknown start commit %q: %w", o.StartAt, err)
		}
		c.start, c.from = c.baseCommit, c.baseCommit
	}
	return nil
}

// finish ends a Create: on failure it runs the undo stack, newest step
// first. The create lock is released last, after any rollback: until
// then the record is ours, and 'owt doctor --fix' must not judge it
// interrupted.
func (c *creation) finish() {
	if c.marked != nil {
		_, _ = c.marked()
	}
	if !c.ok {
		c.rb.run()
		if c.published {
			_ = status.PublishSummaryLocked(c.w.Tmux) // the session set a summary counting this agent
		}
		_ = afterStep("rolled back")
	}
	c.held.Release()
}

// reserveName chooses the agent's name, branch, folder, session and
// ports and writes its record under the create lock (undo: forget the
// record), then starts what later steps read in the background.
func (c *creation) reserveName() error {
	w, o := c.w, c.o
	existing, err := c.branches()
	if err != nil {
		return err
	}
	if undone, err := w.settleCutOff(o.Name); err != nil {
		return err
	} else if undone {
		// Its branch went with it: the names in use are read again.
		if existing, err = w.Repo.NamesInUse(); err != nil {
			return err
		}
	}
	// The name is chosen while tmux's sessions are still on their way,
	// then checked against them: a live session of that name (made by
	// hand, or left by a server owt does not know) is rare, and then the
	// name is chosen again with the sessions known.
	rec, reserved, err := w.reserve(o, c.task, c.prof.Name, c.base, c.baseCommit, c.checkout, nil, existing)
	if err != nil {
		return err
	}
	c.rec, c.held = rec, reserved
	c.rb.push(func() {
		if err := w.dropRecord(c.rec.Name); err != nil {
			w.Warnf("%v; 'owt doctor --fix' forgets it", err)
		}
	})
	if c.sv, err = c.survey(); err != nil {
		return err
	}
	if sessionLive(c.sv.Sessions, c.rec.Session) {
		if o.Name != "" || o.Branch != "" {
			return fmt.Errorf("name %q is in use: tmux session %s already exists", c.rec.Name, c.rec.Session)
		}
		// Chosen again while the first choice is still held, so another
		// owt new takes neither meanwhile; then the first is let go.
		again, reserved, err := w.reserve(o, c.task, c.prof.Name, c.base, c.baseCommit, c.checkout, c.sv.Sessions, existing)
		if err != nil {
			return err
		}
		first, firstHeld := c.rec, c.held
		c.rec, c.held = again, reserved
		if err := w.dropRecord(first.Name); err != nil {
			w.Warnf("%v; 'owt doctor --fix' forgets it", err)
		}
		firstHeld.Release()
	}
	name := c.rec.Name
	c.durable = async(func() (struct{}, error) { return struct{}{}, w.Store.SyncRecord(name) })
	// The files to copy into the worktree, read while git makes it (the
	// main checkout's: that is where they are copied from).
	c.unversioned = async(w.Repo.UnversionedFiles)
	// The status bar summary counting the new agent, rendered while git
	// works and set in the same tmux call that makes the session.
	c.summary = async(func() (map[string]string, error) {
		recs, err := workspace.AllRecords()
		return status.Current(recs).Options(), err
	})
	return nil
}

// makeCheckout makes the worktree on its new branch (undo: remove both),
// or switches the user's checkout to it for an in-place agent.
func (c *creation) makeCheckout() error {
	w, rec := c.w, c.rec
	if rec.InPlace {
		return w.switchInPlace(rec, c.start, c.from, &c.rb)
	}
	if err := w.Repo.AddWorktree(rec.Path, rec.Branch, c.start); err != nil {
		return fmt.Errorf("create worktree %s: %w", rec.Path, err)
	}
	c.rb.push(func() {
		_ = w.Repo.RemoveWorktree(c.rec.Path, true)
		_ = w.Repo.DeleteBranch(c.rec.Branch, true)
		_ = os.RemoveAll(c.rec.Path)
	})
	// owt doctor only ever touches branches carrying this mark; it is
	// written while the files are copied and the session starts (and
	// waited for when Create ends). An in-place agent's branch is the
	// user's: never marked.
	c.marked = async(func() (struct{}, error) { w.markOwtBranch(rec.Branch); return struct{}{}, nil })
	w.Logf("created worktree %s on branch %s (from %s)", rec.Path, rec.Branch, c.from)
	return nil
}

// bringIn puts into the worktree what the agent needs before it starts:
// the copied and linked files, the shared note and memory, the tool's
// hook settings and the first prompt (each undone with the worktree, or
// by its own undo in a checkout that stays).
func (c *creation) bringIn() error {
	w, o, rec := c.w, c.o, c.rec
	hookFile := ""
	if spec, ok := agent.HookFiles[c.prof.Hooks]; ok && !o.NoAgent {
		hookFile = spec.Path
	}
	if !rec.InPlace { // the checkout has its files; owt writes only its hook settings there
		var err error
		if c.copied, err = w.bringFiles(rec.Path, c.unversioned, hookFile, &c.rb); err != nil {
			return err
		}
		notes.Of(w.Workspace).Apply(rec) // the shared note of 'owt note', if one is set
		w.injectMemory(rec)              // what earlier agents learned, within its budget
	} else {
		if _, err := c.unversioned(); err != nil {
			return fmt.Errorf("list untracked files: %w", err)
		}
		if why := w.noFactsInPlace(rec.NoAgent); why != "" {
			w.Logf("memory: no facts injected: %s", why)
		}
	}
	if !o.NoAgent {
		if err := hook.Of(w.Workspace).Install(rec, c.prof, c.rb.push); err != nil {
			return fmt.Errorf("install %s hooks: %w", c.prof.Name, err)
		}
	}
	if !c.tpl.None() {
		if err := w.saveFirstPrompt(c.tpl, rec, o.InRun); err != nil {
			return fmt.Errorf("first prompt of %s: %w", rec.Name, err)
		}
		w.Logf("%s", c.tpl.Said())
	}
	return nil
}

// startSession makes the agent's tmux session, with the bar's summary
// counting it (undo: kill the session).
func (c *creation) startSession() error {
	w, rec := c.w, c.rec
	// The new branch starts at the base: read its commit while tmux
	// works, unless it was known before.
	c.branchAt = func() (string, error) { return c.baseCommit, nil }
	if c.baseCommit == "" {
		c.branchAt = async(func() (string, error) { return w.Repo.ResolveCommit(git.BranchRef(rec.Branch)) })
	}
	global := map[string]string{}
	if opts, err := c.summary(); err == nil {
		maps.Copy(global, opts)
	}
	created, err := w.startSession(rec, w.sessionSize(c.sv), global, c.sv.ClientNames())
	if err != nil {
		return fmt.Errorf("create tmux session %s: %w", rec.Session, err)
	}
	c.created, c.published = created, true
	c.rb.push(func() { _ = w.Tmux.KillSession(created.SessionID) })
	return nil
}

// saveRecord records the session, the copies and the base commit, and
// marks the create finished. Unsynced: what it adds is this session, gone
// with the power too.
func (c *creation) saveRecord() error {
	w, created := c.w, c.created
	err := w.Store.UpdateRecordUnsynced(c.rec.Name, func(r *state.Record) error {
		if r == nil {
			return fmt.Errorf("record %s vanished while it was being created", c.rec.Name)
		}
		r.SessionID, r.Pane, r.Session = created.SessionID, created.PaneID, created.SessionName
		r.Socket = w.Tmux.ServerSocket()
		r.Server = created.Server
		r.Copied = c.copied
		r.Creating = false
		if sha, err := c.branchAt(); err == nil && r.BaseCommit == "" {
			r.BaseCommit = sha
		}
		c.rec = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("save record %s: %w", c.rec.Name, err)
	}
	return nil
}

// settleCutOff undoes what an owt new of the same name left when it was
// cut off (killed, its ssh connection dropped), as owt doctor --fix
// would, so the name is free again: it reports whether it did. What it
// left that holds someone's work keeps the name, and the error says why;
// a create that had started its session is finished, and the name stays
// in use by it.
func (w *Worktrees) settleCutOff(name string) (bool, error) {
	if name == "" {
		return false, nil
	}
	r, err := w.Get(name)
	if err != nil || CreateStateOf(r) != Interrupted {
		return false, nil
	}
	rec, err := w.SettleInterruptedCreate(name)
	if err != nil {
		return false, fmt.Errorf("name %q is in use: an owt new of it was cut off, and %w", name, err)
	}
	if rec == nil {
		w.Logf("undid what the cut-off owt new %s left (branch %s, worktree %s)", name, r.Branch, r.Path)
	}
	return rec == nil, nil
}

// defaultBase is --base, else the branch checked out where owt was run.
func (w *Worktrees) defaultBase(o CreateOptions) (string, error) {
	if o.Base != "" {
		return o.Base, nil
	}
	if o.From == "" && w.Repo.HeadBranch != "" {
		return w.Repo.HeadBranch, nil // read when the repo was opened
	}
	from := o.From
	if from == "" {
		from = w.Repo.Root
	}
	b, err := git.CurrentBranch(from)
	if err != nil {
		return "", err
	}
	if b == "" {
		return "", errors.New("HEAD is detached here: pass --base BRANCH")
	}
	return b, nil
}

// checkNames refuses a --name or --branch owt new would not take.
func (w *Worktrees) checkNames(o CreateOptions) error {
	if o.Name != "" {
		if err := state.ValidateName(o.Name); err != nil {
			return badOption(err)
		}
	}
	if o.Branch != "" {
		if err := w.checkNewBranch(o.Branch); err != nil {
			return badOption(err)
		}
	}
	return nil
}

// checkNewBranch refuses a --branch git would not accept, or would read as
// another ref: a branch named like a tag, a remote branch or refs/<name>
// is measured, merged and deleted as the wrong commits by anyone who
// names it to git without refs/heads/.
func (w *Worktrees) checkNewBranch(branch string) error {
	if !git.ValidBranchName(branch) {
		return fmt.Errorf("invalid branch name %q", branch)
	}
	if strings.HasPrefix(branch, "refs/") {
		return fmt.Errorf("invalid branch name %q: git would read a name starting with refs/ as that ref, not as the branch", branch)
	}
	refs, err := w.Repo.AmbiguousRefs(branch)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return fmt.Errorf("ambiguous branch name %q: %s exists too, and git would read the name as that; pick another --branch", branch, refs[0])
	}
	return nil
}

// checkBase returns the commit of an explicit --base, which must be a
// local branch: owt merges the work back into its base, and a tag, a
// remote branch or a commit cannot take a merge.
func (w *Worktrees) checkBase(base string) (string, error) {
	if !w.Repo.BranchExists(base) {
		if _, err := w.Repo.ResolveCommit(base); err != nil {
			return "", fmt.Errorf("unknown base %q: no such branch", base)
		}
		return "", fmt.Errorf("base %q is not a local branch: the work merges back into its base, so it must be one (to start from it, make a branch there first: git branch NAME %s)", base, base)
	}
	return w.Repo.ResolveCommit(git.BranchRef(base))
}

// reserve picks a free name, branch, folder, session and port block and
// writes the record in state "starting", marked Creating, so concurrent owt
// new calls never choose the same ones. It returns the create lock of the
// name, held until the create ends: kill -9 drops it, which is how owt
// doctor tells an interrupted create from one still running.
func (w *Worktrees) reserve(o CreateOptions, task, tool, base, baseCommit, checkout string, sessions []tmux.Session, branches map[string]string) (*state.Record, *state.Held, error) {
	name, branch := workspace.DeriveName(task)
	if o.Name != "" {
		name = o.Name
		if o.Branch == "" {
			branch = namedBranch(name, task)
		}
	}
	if o.Branch != "" {
		branch = o.Branch
	}
	liveSession := map[string]bool{}
	for _, s := range sessions {
		liveSession[s.Name] = true
	}

	var rec *state.Record
	var held *state.Held
	err := state.WithLock("ports", func() error {
		used, err := w.Store.PortsElsewhere()
		if err != nil {
			return err
		}
		if err := checkMaxAgents(o.MaxAgents); err != nil {
			return err
		}
		// Unsynced here, made durable by Create while git and tmux work
		// (Store.SyncRecord) and before it says the agent was made: the
		// lock and the rename are what other owt processes see at once.
		return w.Store.AddRecordUnsynced(func(there map[string]state.Brief) (*state.Record, error) {
			f := &state.File{Records: make(map[string]*state.Record, len(there))}
			for n, b := range there {
				f.Records[n] = b.Record()
				if b.Port > 0 {
					used = append(used, b.Port)
				}
			}
			port, err := setup.AllocatePort(used, w.Config.Worktree.PortBase, w.Config.Worktree.PortBlock)
			if err != nil {
				return nil, err
			}
			if err := oneInPlace(f, checkout); err != nil {
				return nil, err
			}
			if name, branch, held, err = w.claimName(f, o, name, branch, liveSession, branches); err != nil {
				return nil, err
			}
			rec = w.newRecord(o, name, branch, task, tool, base, baseCommit, checkout, port, liveSession)
			return rec, nil
		})
	})
	if err != nil {
		held.Release()
		return nil, nil, err
	}
	return rec, held, nil
}

// claimName finds the first of name and branch, then name-2 and
// branch-2 …, that nothing uses (f's records, git's refs, a folder, a
// live session) and takes its create lock. An explicit name or branch
// gets no suffix: taken, it is refused.
func (w *Worktrees) claimName(f *state.File, o CreateOptions, name, branch string, liveSession map[string]bool, branches map[string]string) (string, string, *state.Held, error) {
	explicit := o.Name != "" || o.Branch != ""
	for n := 1; ; n++ {
		cn, cb := withSuffix(name, branch, n)
		taken, why := w.taken(f, cn, cb, liveSession, branches)
		if !taken {
			// Its create lock is the claim: one another owt new
			// holds (its record gone while it chooses again) is
			// its name, not free.
			h, err := state.Hold(state.CreateLock(w.Repo.Root, cn))
			if err == nil {
				return cn, cb, h, nil
			}
			if !errors.Is(err, state.ErrHeld) {
				return "", "", nil, fmt.Errorf("reserve %s: %w", cn, err)
			}
			taken, why = true, "another owt new is making it"
		}
		if explicit {
			if o.Branch != "" && branches[cb] == git.BranchRef(cb) {
				return "", "", nil, fmt.Errorf("branch %q already exists: pick another --branch", cb)
			}
			return "", "", nil, fmt.Errorf("name %q is in use: %s", cn, why)
		}
		if clash := refClash(cb, branches); clash != "" && strings.HasPrefix(cb, clash+"/") {
			return "", "", nil, fmt.Errorf("no name is free for %s: %s", name, why) // no suffix can help
		}
		if n > 1000 {
			return "", "", nil, fmt.Errorf("no free name for %s", name)
		}
	}
}

// newRecord is the record of a new agent called name, in state
// "starting" and marked Creating, with its session's name (one that
// another repository's folder of the same name holds gets this one's
// hash) and its port block.
func (w *Worktrees) newRecord(o CreateOptions, name, branch, task, tool, base, baseCommit, checkout string, port int, liveSession map[string]bool) *state.Record {
	session := w.SessionName(name)
	if liveSession[session] {
		// Another repo with the same folder name owns it.
		session = workspace.SessionPart(w.Repo.Name()) + "-" + shortHash(w.Repo.Root) + "/" + workspace.SessionPart(name)
	}
	now := w.Now()
	rec := &state.Record{
		Name: name, Life: state.NewLife(), Repo: w.Repo.Root, Branch: branch, Base: base, BaseCommit: baseCommit,
		Path: w.WorktreePath(name), Session: session, Tool: tool, Task: task,
		Plan: o.Plan, NoAgent: o.NoAgent, NoSetup: o.NoSetup, Port: port,
		Status: state.Starting, StatusSince: now, Source: state.FromOwt, CreatedAt: now,
		Creating: true, Spawner: o.Spawner, SpawnDepth: o.SpawnDepth, Issue: max(o.Issue, o.ReadIssue),
	}
	if checkout != "" {
		// The user's checkout is set up already: no install there.
		rec.Path, rec.InPlace, rec.NoSetup = checkout, true, true
	}
	return rec
}

// MaxAgentsRefused is in the words of owt new refused by MaxAgents: the
// owt that asked a host for the agent tells that refusal by it.
const MaxAgentsRefused = "its max_agents is"

// checkMaxAgents refuses a new agent on a machine that runs max agents
// already, every repository's (an exited one no longer counts; one
// being made does). Called under the ports lock, which every reserve
// takes.
func checkMaxAgents(max int) error {
	if max <= 0 {
		return nil
	}
	recs, err := workspace.AllRecords()
	if err != nil {
		return fmt.Errorf("count the agents here: %w", err)
	}
	live := 0
	for _, r := range recs {
		if r.Status != state.Exited {
			live++
		}
	}
	if live >= max {
		return fmt.Errorf("this machine runs %d agent(s) and %s %d: finish one here, or raise max_agents", live, MaxAgentsRefused, max)
	}
	return nil
}

// sessionLive reports whether a session called name is among sessions.
func sessionLive(sessions []tmux.Session, name string) bool {
	for _, s := range sessions {
		if s.Name == name {
			return true
		}
	}
	return false
}

// taken reports whether a name or branch is already used, and by what.
func (w *Worktrees) taken(f *state.File, name, branch string, liveSession map[string]bool, branches map[string]string) (bool, string) {
	if _, ok := f.Records[name]; ok {
		return true, "owt already has a worktree with that name"
	}
	if state.ReservedName(name) {
		return true, "owt's commands would read it as a request for help"
	}
	if ref, ok := branches[branch]; ok && ref == git.BranchRef(branch) {
		return true, "branch " + branch + " already exists"
	} else if ok {
		return true, "git would read branch " + branch + " as " + ref
	}
	if other := refClash(branch, branches); other != "" {
		return true, "branch " + other + " exists, and git cannot have both it and " + branch
	}
	if _, err := os.Lstat(w.WorktreePath(name)); err == nil {
		return true, w.WorktreePath(name) + " already exists"
	}
	if liveSession[w.SessionName(name)] {
		return true, "tmux session " + w.SessionName(name) + " already exists"
	}
	return false, ""
}

// refClash is a branch git would not let branch exist beside (one is a
// folder of the other's ref: feat and feat/x, feat/x and feat/x/old),
// "" when there is none.
func refClash(branch string, branches map[string]string) string {
	isBranch := func(name string) bool {
		ref, ok := branches[name]
		return ok && ref == git.BranchRef(name)
	}
	for dir := branch; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			break
		}
		if dir = dir[:i]; isBranch(dir) {
			return dir
		}
	}
	for b := range branches {
		if strings.HasPrefix(b, branch+"/") && isBranch(b) {
			return b
		}
	}
	return ""
}

// forgetRecords forgets, in one update, the records pick names from the
// file as read under its lock, and settles what was theirs
// (AbandonMail). An error of pick leaves the file as it is.
func (w *Worktrees) forgetRecords(pick func(f *state.File) ([]string, error)) error {
	var gone []*state.Record
	err := w.Store.Update(func(f *state.File) error {
		gone = gone[:0]
		names, err := pick(f)
		if err != nil {
			return err
		}
		for _, n := range names {
			if r := f.Records[n]; r != nil {
				gone = append(gone, r)
			}
			delete(f.Records, n)
		}
		return nil
	})
	if err != nil {
		return err
	}
	AbandonMail(gone, w.Logf)
	return nil
}

// dropRecord forgets the record called name.
func (w *Worktrees) dropRecord(name string) error {
	err := w.forgetRecords(func(*state.File) ([]string, error) { return []string{name}, nil })
	if err != nil {
		return fmt.Errorf("could not forget the record of %s: %w", name, err)
	}
	return nil
}

// errAnotherLife: the record of the name is another agent's now.
var errAnotherLife = errors.New("another agent was given its name since")

// dropRecordOf forgets r, the record as it was read, only if the record
// of its name is still r's agent (its life and creation): between a read
// and this drop (owt doctor's), the agent may have been deleted and
// another given its name, whose record, mail and session are not r's to
// end. An r already gone is no error.
func (w *Worktrees) dropRecordOf(r *state.Record) error {
	err := w.forgetRecords(func(f *state.File) ([]string, error) {
		cur := f.Records[r.Name]
		if cur == nil {
			return nil, state.ErrNoChange
		}
		if cur.Life != r.Life || !cur.CreatedAt.Equal(r.CreatedAt) {
			return nil, errAnotherLife
		}
		return []string{r.Name}, nil
	})
	if errors.Is(err, errAnotherLife) {
		return fmt.Errorf("left the record of %s: %w", r.Name, err)
	}
	if err != nil {
		return fmt.Errorf("could not forget the record of %s: %w", r.Name, err)
	}
	return nil
}

// bringFiles copies the configured files git ignores (.env and friends)
// and links the configured paths into a new worktree. Files the worktree
// already has (tracked on its branch) are never overwritten. A matching
// file git does not ignore is not copied — in the worktree the agent's
// "git add -A" would commit it, and owt ship would land it — unless it is
// the agent's hook settings file (hookFile), which owt keeps out of git.
func (w *Worktrees) bringFiles(dst string, listUnversioned func() (git.Unversioned, error), hookFile string, rb *undo) ([]string, error) {
	unversioned, err := listUnversioned()
	if err != nil {
		return nil, fmt.Errorf("list untracked files: %w", err)
	}
	matches, err := setup.MatchCopy(unversioned.Ignored, w.Config.Worktree.Copy)
	if err != nil {
		return nil, fmt.Errorf("config worktree.copy: %w", err)
	}
	untracked, _ := setup.MatchCopy(unversioned.Untracked, w.Config.Worktree.Copy)
	var skipped []string
	for _, u := range untracked {
		if u == hookFile {
			matches = append(matches, u)
		} else {
			skipped = append(skipped, u)
		}
	}
	if len(skipped) > 0 {
		w.Warnf("not copied %s: git does not ignore it, so the agent could commit it (add it to .gitignore to have it copied)", untrusted.Some(skipped, workspace.ListedMax))
	}
	var todo []string
	for _, rel := range matches {
		if _, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(rel))); err == nil {
			w.Logf("kept %s: the branch already has it", rel)
			continue
		}
		todo = append(todo, rel)
	}
	copied, err := setup.CopyFiles(w.Repo.Root, dst, todo)
	if err != nil {
		return nil, fmt.Errorf("copy files into %s: %w", dst, err)
	}
	for _, c := range copied {
		w.Logf("copied %s", c)
	}
	if len(w.Config.Worktree.Link) == 0 {
		return copied, nil
	}
	linked, skipped, err := setup.LinkPaths(w.Repo.Root, dst, w.Config.Worktree.Link)
	if err != nil {
		return nil, fmt.Errorf("link files into %s: %w", dst, err)
	}
	for _, s := range skipped {
		w.Logf("not linked %s: missing in %s", s, w.Repo.Root)
	}
	if len(linked) == 0 {
		return copied, nil
	}
	// A symlink is a file to git, so a pattern like "node_modules/" does not
	// hide it: exclude the links by exact path, and put the file back as it
	// was if creation fails.
	patterns := make([]string, len(linked))
	for i, l := range linked {
		patterns[i] = "/" + l
		w.Logf("linked %s", l)
	}
	if _, err := hook.Of(w.Workspace).ExcludeWithUndo(rb.push, dst, patterns...); err != nil {
		return nil, fmt.Errorf("exclude links from git: %w", err)
	}
	return copied, nil
}

// sessionEnv is the environment of a worktree's session: who it is, and
// where owt keeps its state, so the runner and hooks inside find the record
// even when the tmux server was started with another environment.
func (w *Worktrees) sessionEnv(rec *state.Record) map[string]string {
	env := map[string]string{
		"OWT_NAME": rec.Name,
		"OWT_REPO": rec.Repo,
		"OWT_PORT": strconv.Itoa(rec.Port),
	}
	if rec.Life != "" {
		env[state.LifeEnv] = rec.Life // the runner tells its agent from a later one of the name
	}
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// startSession opens the worktree's session running "owt _run", which shows
// the setup, starts the agent and leaves a shell when it exits. No user text
// is on the tmux command line: the runner reads the task from the record.
//
// The session's @owt-* options are set by that runner, by its own pane id,
// as its first act: owt new then makes the session, sets the bar's summary
// and redraws the clients in one tmux call.
func (w *Worktrees) startSession(rec *state.Record, size [2]int, global map[string]string, clients []string) (tmux.Created, error) {
	ns := tmux.NewSession{
		Global:  global,
		Refresh: clients,
		Width:   size[0],
		Height:  size[1],
		Name:    rec.Session,
		Dir:     rec.Path,
		Env:     w.sessionEnv(rec),
		Argv:    []string{w.Self, "_run"},
	}
	if !rec.NoAgent {
		// The agent runs as the pane's foreground job, so tmux would name
		// the window after its process (often "node"); the tool's name
		// says more. A shell keeps tmux's automatic naming.
		ns.WindowName = rec.Tool
	}
	return w.Tmux.NewSession(ns)
}

// ReadAhead are the reads a Create starts with, started before the
// repository is opened: the tmux server's sessions and clients, and in
// one git call the repository (what workspace.Open finds) with its ref
// names, read from the directory owt new runs in. Two processes on the
// critical path, not four: the unversioned files, needed only once the
// worktree is there, are read while git makes it.
type ReadAhead struct {
	survey func() (tmux.Survey, error)
	found  func() (git.Found, error)
}

// StartReadAhead starts the reads of a Create to come in dir, the
// directory the repository will be opened from, on the server tm talks to.
func StartReadAhead(tm *tmux.Client, dir string) *ReadAhead {
	return &ReadAhead{survey: async(tm.Survey), found: async(func() (git.Found, error) { return git.FindRepoAndNames(dir) })}
}

// Repo is the repository at the read-ahead's directory, as git.FindRepo
// finds it.
func (a *ReadAhead) Repo() (git.Repo, error) {
	f, err := a.found()
	return f.Repo, err
}

// firstReads are the reads ahead, or started now without them.
func (w *Worktrees) firstReads(ahead *ReadAhead) (func() (tmux.Survey, error), func() (map[string]string, error)) {
	if ahead == nil {
		return async(w.Tmux.Survey), async(w.Repo.NamesInUse)
	}
	return ahead.survey, func() (map[string]string, error) {
		f, err := ahead.found()
		return f.Names, err
	}
}

// headCommit is the commit of the default base as the read ahead saw it
// (HEAD where owt was run, on the branch the repository was opened on),
// "" when there is none to take.
func (w *Worktrees) headCommit(ahead *ReadAhead, o CreateOptions) string {
	if ahead == nil || o.Base != "" || o.From != "" || o.StartAt != "" || o.InPlace {
		return ""
	}
	f, err := ahead.found()
	if err != nil || f.Repo.Root != w.Repo.Root || f.Repo.HeadBranch == "" || f.Repo.HeadBranch != w.Repo.HeadBranch {
		return ""
	}
	return f.HeadCommit
}

// async runs f in the background; the returned function waits for its result.
func async[T any](f func() (T, error)) func() (T, error) {
	var v T
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		v, err = f()
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}

// sessionSize is the size to make a session at ([tmux] size): the
// terminal the user is on when "auto", so the agent draws its first
// screens for the size it will be seen at.
func (w *Worktrees) sessionSize(sv tmux.Survey) [2]int {
	spec := w.Config.Tmux.Size
	if spec == "auto" {
		if wd, ht, ok := sv.UserSize(); ok {
			return [2]int{wd, ht}
		}
		spec = tmux.DefaultSize
	}
	wd, ht, _ := config.ParseSize(spec)
	return [2]int{wd, ht}
}

// badOption marks err as ErrBadOption, keeping its words.
func badOption(err error) error { return badOptionError{err} }

type badOptionError struct{ error }

func (e badOptionError) Is(target error) bool { return target == ErrBadOption }
func (e badOptionError) Unwrap() error        { return e.error }

// startMonitor makes sure the status monitor of this tmux server runs, so
// agents without hooks get a status and transitions get notified. Not
// being able to start it does not fail the caller.
func (w *Worktrees) startMonitor() {
	if err := daemon.EnsureRunning(w.Self, w.Tmux); err != nil {
		w.Logf("status monitor not started: %v", err)
	}
}

// shortHash tells two repositories of the same name apart in a session
// name: six hex digits of the hash of the repo's root.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:6]
}

// withSuffix returns name and branch with "-n" appended (n ≥ 2).
func withSuffix(name, branch string, n int) (string, string) {
	if n < 2 {
		return name, branch
	}
	s := fmt.Sprintf("-%d", n)
	return name + s, branch + s
}

// injectMemory gives a new agent the facts of the repository's memory for
// its task, through owt-mcp (owt does not link the memory), and says so:
// progress, or a warning when it starts without them.
func (w *Worktrees) injectMemory(rec *state.Record) {
	if rec.NoAgent || w.Config.Memory.InjectTokens <= 0 {
		return
	}
	memory.Inject(w.Self, w.Repo.Root, rec.Name, "", "", false).Say(w.Warnf, w.Logf)
}
