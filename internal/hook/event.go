package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Call is one run of "owt hook KIND EVENT", as a tool made it.
type Call struct {
	Kind, Event string
	// Payload is the event JSON: stdin for Claude, Droid and Gemini, the
	// last argument for Codex's notify.
	Payload []byte
	// Chain is the user's own Codex notify program, run with Payload.
	Chain []string
	// Getenv reads the hook's environment (OWT_NAME, OWT_REPO).
	Getenv func(string) string
	// Dir is the hook's working directory, used when the payload has no cwd.
	Dir string
	// At is when the hook started: the time of the event.
	At time.Time
}

// ErrIgnored marks a hook call that says nothing about the status (an
// event owt does not map, a notification about something else).
var ErrIgnored = errors.New("event ignored")

// Handle applies one hook event to its record. It is the hot path of
// every agent turn, so it does only this: parse, one locked state update,
// and when the status changed, a ring of the monitor's bell (else a
// detached "owt _publish") for the tmux side. It loads no config and runs
// no git. Errors are for owt's log; the caller must still exit 0, because
// a failing hook can stop the agent.
func Handle(tm *tmux.Client, call Call) error {
	chainErr := runChain(call)
	var ev agent.HookEvent
	var parseErr error
	if len(call.Payload) > 0 {
		if err := json.Unmarshal(call.Payload, &ev); err != nil {
			ev = agent.HookEvent{}
			parseErr = fmt.Errorf("bad event JSON (%v)", err)
		}
	}
	status, ok := agent.HookStatus(call.Kind, call.Event, ev)
	if !ok {
		return errors.Join(fmt.Errorf("%w: %s %s", ErrIgnored, call.Kind, call.Event), parseErr, chainErr)
	}
	w, name, owns, err := hookLedger(tm, call, ev)
	if err == nil && strings.HasSuffix(name, "/tester") {
		// A swarm's tester: its check needs its edits (no other worker
		// pays for it). Whose event it is must be known before.
		if owns != nil && !ownsPeeked(w.store, name, owns) {
			w, name = byCwd(tm, ev.Cwd, w, name)
		}
		owns = nil
		err = noteWorkerEdit(w, name, call, ev)
	}
	if err == nil {
		var rec *state.Record
		var changed, notMine bool
		rec, changed, notMine, err = applyHook(w, name, owns, status, call, ev)
		if notMine {
			w, name = byCwd(tm, ev.Cwd, w, name)
			rec, changed, _, err = applyHook(w, name, nil, status, call, ev)
		}
		if changed {
			err = publish(w, rec)
		}
	}
	return errors.Join(err, parseErr, chainErr)
}

// applyHook changes the status of the record called name as the event
// says, in one locked update. When owns is set and says the record (as
// read under the lock) does not own the event, nothing changes and
// notMine is set: the caller finds the right record.
func applyHook(w *ledger, name string, owns func(*state.Record) bool, status string, call Call, ev agent.HookEvent) (rec *state.Record, changed, notMine bool, err error) {
	foreign, other := false, ""
	rec, changed, err = w.store.ChangeStatus(name, func(r *state.Record) (state.StatusChange, bool) {
		if owns != nil && !owns(r) {
			notMine = true
			return state.StatusChange{}, false
		}
		if !fromAgent(r, call) {
			foreign = true
			return state.StatusChange{}, false
		}
		var own bool
		if other, own = ownSession(r, call, ev); !own {
			foreign = true
			return state.StatusChange{}, false
		}
		// A --no-agent worktree has no agent: a tool someone runs in
		// it by hand reports nothing owt could ever clear again.
		c := state.StatusChange{Status: state.Status(status), Source: state.FromHook, At: call.At,
			TurnError: agent.HookTurnError(call.Event, ev), Interrupted: call.Event == "Interrupt",
			Hook: &state.HookEvent{Event: call.Event, Detail: hookDetail(call, ev), Status: state.Status(status), At: call.At}}
		c.AgentSession = agent.HookSession(call.Kind, call.Event, ev)
		if call.Kind == "claude" {
			c.Transcript = ev.TranscriptPath // the usage tracker reads Claude's tokens there
		}
		switch c.Status {
		case state.Waiting:
			c.WaitingFor = agent.HookWaitReason(call.Event, ev)
		case state.Limited:
			l := agent.LimitIn(ev, call.At)
			c.Limit = &l
		}
		// Claude's idle_prompt notification (its prompt waited a while)
		// corrects only a "working" that no hook ended (Esc fires none).
		// It says nothing new about an agent idle or waiting there: a
		// failed turn's screen asking for a login would be told again,
		// idle, then waiting once more; a usage limit would be forgotten.
		if c.Status == state.Idle && call.Event == "Notification" && r.Status != state.Working {
			return c, false
		}
		// A turn a hook says started behind a first-run question on
		// screen (Gemini CLI sends its task behind its API key box, where
		// the turn fails) is no work the user sees: the question is what
		// needs them, and the screen says when it is gone.
		if c.Status == state.Working && r.Status == state.Waiting && r.Source == state.FromScreen && agent.FirstRunWait(r.WaitingFor) {
			return c, false
		}
		// A tool that ends while owt resumes it did not resume (Claude
		// Code fires SessionEnd as it exits on an id it cannot take up):
		// the runner starts it fresh at once, or records the exit itself.
		if c.Status == state.Exited && r.Resume != nil && (r.Resume.Outcome == state.ResumePending || r.Resume.Outcome == state.ResumeResuming) {
			return c, false
		}
		return c, !r.NoAgent
	})
	if other != "" && err == nil {
		err = noteOtherSession(w, name, other)
	}
	if foreign && err == nil {
		err = fmt.Errorf("%w: %s %s came from a tool that is not %s's agent (another one run in its folder)", errNotTheAgent, call.Kind, call.Event, name)
	}
	return rec, changed, notMine, err
}

// errNotTheAgent marks an event of a tool that is not the record's agent:
// the hooks in an agent's folder fire for whatever tool runs there.
var errNotTheAgent = fmt.Errorf("%w (not the agent)", ErrIgnored)

// fromAgent reports whether the hook call came from r's agent process:
// it carries the id the runner gave that process (state.AgentIDEnv). A
// record with no id (started by an older owt) takes any hook; so do
// Codex's lifecycle hooks, which run in its shared background server with
// the environment of whichever codex started it.
func fromAgent(r *state.Record, call Call) bool {
	if r.AgentID == "" || call.Kind == "codex" && call.Event != "notify" {
		return true
	}
	return call.Getenv(state.AgentIDEnv) == r.AgentID
}

// ownSession reports whether an event carrying r's agent id comes from
// the agent's own tool session. A tool the agent itself runs in its folder
// (its Bash tool's "claude -p") inherits the id with the rest of its
// environment, and runs a session of its own: an event of a session
// other than the agent's, while a hook of this start says the agent works
// on a turn, is such a tool's; other is that session, whose later events
// (its Stop, its SessionEnd) are then not the agent's either
// (Record.OtherSessions). Any other new session is the agent's own
// (Claude Code's /clear, a resume, a plan approved with its context
// cleared, all while it is not working). Events with no session id say
// nothing either way.
func ownSession(r *state.Record, call Call, ev agent.HookEvent) (other string, own bool) {
	switch call.Kind {
	case "claude", "droid", "gemini":
	default:
		return "", true
	}
	s := agent.HookSession(call.Kind, call.Event, ev)
	if r.AgentID == "" || !state.ValidSessionID(s) {
		return "", true
	}
	if slices.Contains(r.OtherSessions, s) {
		return "", false
	}
	if r.AgentSession != "" && s != r.AgentSession && r.Status == state.Working && r.Source == state.FromHook &&
		!r.AgentIDAt.IsZero() && !r.StatusSince.Before(r.AgentIDAt) {
		return s, false
	}
	return "", true
}

// noteOtherSession keeps session on name's record as not its agent's.
func noteOtherSession(w *ledger, name, session string) error {
	return w.store.UpdateRecordUnsynced(name, func(r *state.Record) error {
		if r == nil || !r.NoteOtherSession(session) {
			return state.ErrNoChange
		}
		return nil
	})
}

// hookDetail is what, beyond its name, decided an event's status: a
// Notification's type, a Codex notify's type (only types agent.HookStatus maps
// get this far, so these are the tools' fixed words).
func hookDetail(call Call, ev agent.HookEvent) string {
	switch {
	case call.Event == "Notification" && ev.NotificationType != "":
		return ev.NotificationType
	case call.Event == "Notification":
		return "message"
	case call.Kind == "codex" && call.Event == "notify":
		return ev.Type
	}
	return ""
}

// hookLedger finds the record a hook is about: OWT_NAME and OWT_REPO
// from the session's environment, else the worktree holding the event's
// cwd. The event's cwd wins when it lies in another record's worktree: a
// tool started in worktree B from a shell of A's session inherits A's
// environment but is B's agent — unless the hook runs in the pane of the
// environment's live agent ($TMUX_PANE), which makes it that agent's, even
// when the agent looks around a sibling worktree. That is told by owns, on
// the record as the locked update reads it (one read of the state, not
// two: this is every hook's path); owns is nil when the record was found
// by the cwd.
func hookLedger(tm *tmux.Client, call Call, ev agent.HookEvent) (*ledger, string, func(*state.Record) bool, error) {
	name, repo := call.Getenv("OWT_NAME"), call.Getenv("OWT_REPO")
	hint := repo
	if call.Kind == "codex" && call.Event != "notify" {
		// Codex's lifecycle hooks run in its shared background server,
		// whose environment is that of whichever codex started it: only
		// the event's cwd says whose turn it is (the environment's repo is
		// still the likeliest place to find it).
		name, repo = "", ""
	}
	if name != "" && repo != "" {
		var owns func(*state.Record) bool
		if ev.Cwd != "" {
			pane, id := call.Getenv("TMUX_PANE"), call.Getenv(state.AgentIDEnv)
			owns = func(r *state.Record) bool { return ownsEvent(r, pane, id, ev.Cwd) }
		}
		return newLedger(tm, state.ForRepo(repo)), name, owns, nil
	}
	dir := ev.Cwd
	if dir == "" {
		dir = call.Dir
	}
	w, name, err := ledgerByPath(tm, dir, hint)
	return w, name, nil, err
}

// ledgerByPath is the ledger and name of the record whose worktree holds
// dir; hint is the likeliest repository.
func ledgerByPath(tm *tmux.Client, dir, hint string) (*ledger, string, error) {
	store, rec, err := FindByPath(dir, hint)
	if err != nil {
		return nil, "", err
	}
	return newLedger(tm, store), rec.Name, nil
}

// byCwd is the record whose worktree holds the event's cwd, when its
// environment's record (w, name) does not own the event; that record
// when no worktree holds it.
func byCwd(tm *tmux.Client, cwd string, w *ledger, name string) (*ledger, string) {
	if w2, name2, err := ledgerByPath(tm, cwd, w.root); err == nil {
		return w2, name2
	}
	return w, name
}

// ledger is one repository's records, as a hook reaches them, and the
// tmux server a change is shown on.
type ledger struct {
	root  string
	store *state.Store
	tm    *tmux.Client
}

func newLedger(tm *tmux.Client, store *state.Store) *ledger {
	return &ledger{root: store.Repo, store: store, tm: tm}
}

// ownsPeeked is ownsEvent on the record as the state file has it now,
// read without the lock; a record that cannot be read owns the event.
func ownsPeeked(store *state.Store, name string, owns func(*state.Record) bool) bool {
	r, err := store.PeekRecord(name)
	return err != nil || r == nil || owns(r)
}

// ownsEvent reports whether record r owns an event fired in pane by a
// process with agent id id, with cwd dir: it does when the event comes
// from its agent (its id, or its live agent's pane), or when its worktree
// holds dir (and when that cannot be told, so the environment's record
// stays the answer).
func ownsEvent(r *state.Record, pane, id, dir string) bool {
	if r.Path == "" || id != "" && id == r.AgentID {
		return true
	}
	if pane != "" && r.Pane == pane && r.Status != state.Exited && !r.NoAgent {
		return true
	}
	return within(dir, r.Path) || within(realPath(dir), r.Path)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

func realPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// FindByPath returns the record whose worktree holds dir.
func FindByPath(dir, hint string) (*state.Store, *state.Record, error) {
	if dir == "" {
		return nil, nil, errors.New("no OWT_NAME in the environment and no cwd to find the worktree by")
	}
	dir = realPath(dir)
	stores, err := state.Stores()
	if err != nil {
		return nil, nil, err
	}
	if hint != "" {
		// The likeliest store first: one read instead of every repo's.
		stores = append([]*state.Store{state.ForRepo(hint)}, stores...)
	}
	for _, s := range stores {
		f, err := s.Peek()
		if err != nil {
			continue
		}
		for _, r := range f.Records {
			// A swarm worker shares its host's path: a cwd names the host.
			if r != nil && r.Path != "" && r.Swarm == nil && within(dir, r.Path) {
				return s, r, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("no owt worktree holds %s", dir)
}

// runChain starts the user's own Codex notify program with the event, the
// way Codex would have: argv, the JSON last, not waited for.
func runChain(call Call) error {
	if len(call.Chain) == 0 {
		return nil
	}
	cmd := exec.Command(call.Chain[0], append(call.Chain[1:], string(call.Payload))...)
	cmd.Dir = call.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	devnull, err := os.Open(os.DevNull)
	if err == nil {
		defer devnull.Close()
		cmd.Stdin = devnull
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run your codex notify program %s: %w", call.Chain[0], err)
	}
	return cmd.Process.Release()
}

// publish has the record rec, just changed, shown in tmux without
// waiting for it: the monitor of the record's tmux server does it when it
// takes the ring (daemon.Ring), else a detached "owt _publish".
func publish(w *ledger, rec *state.Record) error {
	socket := rec.Socket
	if socket == "" {
		socket = w.tm.ServerSocket()
	}
	if daemon.Ring(socket, w.root, rec.Name) == nil {
		return nil
	}
	return publishDetached(w, rec.Name)
}

// publishDetached hands publishing to a detached "owt _publish", which
// takes the publish lock itself: the caller (a hook the agent waits for)
// waits neither for tmux nor for another publisher.
func publishDetached(w *ledger, name string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("publish %s: find owt: %w", name, err)
	}
	cmd := exec.Command(self, "_publish", w.root, name)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("publish %s: start owt _publish: %w", name, err)
	}
	return cmd.Process.Release()
}
