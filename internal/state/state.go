// Package state keeps owt's records of worktrees and their agents under
// $XDG_STATE_HOME/owt/: per repository an index file and one JSON file
// per agent's record (store.go says how they lie and are locked).
//
// Every file is replaced atomically (temp file, fsync, rename) with mode
// 0600, so readers never lock: a read sees a whole record. A change to
// one record (the hook's path) reads and writes that record's file alone,
// under its own lock, so its cost does not grow with the repository's
// agents and hooks of different agents never wait for each other; Update
// reads every record and writes those whose encoding changed. A record
// file that does not parse is moved aside and that record rebuilt by the
// Rebuild function the caller provides, so no worktree is ever forgotten;
// a state of the older single-file layout is migrated on first use, with
// a backup of it kept beside it.
//
// It also holds the status rule (Store.ChangeStatus, statuschange.go):
// what one event, a hook's, the screen's or owt's own, does to an agent's
// record, for every writer.
package state

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// Version is the schema version of a repository's state, written into
// its index file (store.go). Version 1 kept every record in that one
// file; version 2 keeps each record in a file of its own.
const Version = 2

// Status is where an agent is in its life.
type Status string

// The status model of DESIGN.md.
const (
	Starting Status = "starting"
	Working  Status = "working"
	Waiting  Status = "waiting"
	Idle     Status = "idle"
	Exited   Status = "exited"
	// Limited: a usage limit or quota stopped the agent until it resets
	// (Record.Limit); it needs the user, as a waiting agent does.
	Limited Status = "limited"
)

// NeedsYou reports whether an agent in status s waits for the user: a
// question or permission (waiting), or a usage limit (limited).
func (s Status) NeedsYou() bool { return s == Waiting || s == Limited }

// Limit is the usage limit a limited agent hit.
type Limit struct {
	// Text is the tool's words for it.
	Text untrusted.Untrusted `json:"text,omitzero"`
	// Reset is when the tool said it resets (zero: it did not say).
	Reset time.Time `json:"reset,omitzero"`
	// Nudged: owt told the agent to go on once the limit had reset.
	Nudged bool `json:"nudged,omitempty"`
}

// Source says who set a status.
type Source string

// Sources of a status.
const (
	FromOwt    Source = "owt"
	FromHook   Source = "hook"
	FromScreen Source = "screen"
)

// HasReset reports whether the limit named a reset time and it has
// passed: the tool may take work again. A nil limit, or one without a
// reset time, has not.
func (l *Limit) HasReset(now time.Time) bool {
	return l != nil && !l.Reset.IsZero() && !l.Reset.After(now)
}

// Why says why a limited agent waits, for people: "usage limit, resets
// 15:00" (a reset on another day names the day), or the limit's words
// when the tool gave no reset time. A nil limit is just "usage limit".
func (l *Limit) Why(now time.Time) string {
	switch {
	case l == nil:
		return "usage limit"
	case !l.Reset.IsZero():
		return "usage limit, resets " + resetWhen(l.Reset, now)
	case !l.Text.Empty():
		return "usage limit: " + l.Text.Short(60)
	}
	return "usage limit"
}

// resetWhen is a reset time for people: "15:00" today, "Mon 09:00"
// within the week, else "Dec 3 09:00".
func resetWhen(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return t.Format("15:04")
	case t.After(now) && t.Sub(now) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	}
	return t.Format("Jan 2 15:04")
}

// Record is one worktree and its agent.
type Record struct {
	Name string `json:"name"`
	// Life is this agent's own id, drawn when it is made (NewLife): a
	// later agent given the same name is another life, and the messages,
	// usage and other records kept per agent are keyed by it, so none of
	// this one's pass to that one. "" on records from before lives.
	Life       string `json:"life,omitempty"`
	Repo       string `json:"repo"`
	Branch     string `json:"branch"`
	Base       string `json:"base"`
	BaseCommit string `json:"base_commit,omitempty"`
	Path       string `json:"path"`
	// InPlace: the agent works in the user's own checkout at Path (owt new
	// --in-place), on a branch owt switched it to; Path is never owt's to
	// remove, and the branch stays when the agent goes.
	InPlace   bool   `json:"in_place,omitempty"`
	Session   string `json:"session"`
	SessionID string `json:"session_id,omitempty"`
	Socket    string `json:"socket,omitempty"` // the tmux server the session was made on: only its monitor may call the agent gone
	// Server identifies that server's run (host, pid, start time): tmux
	// hands out $N and %N again after a restart, so the recorded ids mean
	// something only while it is the same server.
	Server  string `json:"server,omitempty"`
	Pane    string `json:"pane,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Task    string `json:"task,omitempty"`
	Plan    bool   `json:"plan,omitempty"`
	NoAgent bool   `json:"no_agent,omitempty"`
	NoSetup bool   `json:"no_setup,omitempty"`
	// AgentID is a token the runner makes for each start of the agent
	// and gives the agent's process alone, in AgentIDEnv: the hooks in its
	// folder (its worktree, or the user's checkout in place) fire for any
	// tool run there, and only those carrying it are the agent's. ""
	// for an agent started by an owt from before it (any hook counts).
	AgentID string `json:"agent_id,omitempty"`
	// AgentIDAt is when AgentID was made. OtherSessions are tool
	// sessions that carried it but are not the agent's: a tool the agent
	// itself runs in its folder (its Bash tool's "claude -p") inherits
	// the id, and runs a session of its own (hook.ownSession).
	AgentIDAt     time.Time `json:"agent_id_at,omitzero"`
	OtherSessions []string  `json:"other_sessions,omitempty"`
	// Template is the task template the first prompt was made with
	// ("" for the bare task); Prompt is that first prompt, when it is not
	// Task, until the session's runner starts the agent with it: Task
	// stays the user's words, shown in lists.
	Template string `json:"template,omitempty"`
	Prompt   string `json:"prompt,omitempty"`
	// Issue is the GitHub issue the task came from (owt new --issue).
	Issue int `json:"issue,omitempty"`
	// Copied lists the files owt copied in from the main checkout; while
	// they are unchanged they are not the agent's work.
	Copied []string `json:"copied,omitempty"`
	// SetupFailed says which steps of the worktree's dependency install
	// and setup commands failed, with why ("node (npm): exit status 1"):
	// the agent started anyway, and the pane's line scrolled away.
	SetupFailed []string `json:"setup_failed,omitempty"`
	// SetupMade are the lockfiles the dependency install wrote where the
	// new worktree had none, with the digest of what it wrote: while one
	// is unchanged it is owt's, not work (owt delete does not count it).
	SetupMade []MadeFile `json:"setup_made,omitempty"`
	// SetupDirs are the dependency folders (node_modules, .venv, vendor)
	// the install made where the new worktree had none: what is in them
	// comes from the project's manifest and lockfile, so owt uninstall
	// removes them with the worktree instead of taking them for work.
	SetupDirs   []string  `json:"setup_dirs,omitempty"`
	Port        int       `json:"port"`
	Status      Status    `json:"status"`
	StatusSince time.Time `json:"status_since"`
	Source      Source    `json:"status_source"`
	// EventAt is when the event behind the status happened (a hook's start,
	// a screen observation): an event older than it is stale and ignored,
	// so hooks that reach the lock out of order cannot roll a status back.
	EventAt  time.Time `json:"status_event_at,omitzero"`
	ExitCode *int      `json:"exit_code,omitempty"`
	// WaitingFor says what a waiting agent waits for: "permission",
	// "question", "trust", "hooks" (Codex's hooks review), "login", "API key".
	WaitingFor string `json:"waiting_for,omitempty"`
	// TurnError is why the agent's last turn failed (an API, auth or rate
	// limit error), until a new turn starts. The task is kept: 'owt send
	// NAME --task' sends it again.
	TurnError untrusted.Untrusted `json:"turn_error,omitzero"`
	// Limit is the usage limit of a limited agent (nil otherwise).
	Limit *Limit `json:"limit,omitempty"`
	// Interrupted: the user stopped the last turn (Esc): no turn finished,
	// and nobody needs to be told.
	Interrupted bool `json:"interrupted,omitempty"`
	// TaskPending: the agent was started with its task, and no turn has
	// been seen to start since. An agent that turns idle before one did
	// never took its task (it was lost behind a sign-in screen).
	TaskPending bool `json:"task_pending,omitempty"`
	// Hooks are the last hook events that set or refreshed the status,
	// oldest first, at most HookRing: written in the state update the hook
	// makes anyway, for owt why.
	Hooks []HookEvent `json:"hook_events,omitempty"`
	// Screen is the last screen reading that set or confirmed the status
	// (the monitor's), for owt why; a status a hook or owt sets later
	// drops it.
	Screen *ScreenEvidence `json:"screen_evidence,omitempty"`
	// Done is what the agent said with owt done, until its next turn
	// starts: the explicit end of its task (or why it failed or is stuck).
	Done      *DoneSignal `json:"done,omitempty"`
	CreatedAt time.Time   `json:"created_at"`
	// Creating is set while owt new builds the worktree, and cleared once
	// its session is recorded. The creating process holds CreateLock the
	// whole time, so a record still Creating whose lock nobody holds is an
	// interrupted create (owt doctor undoes it).
	Creating bool `json:"creating,omitempty"`
	// Recovered marks a record rebuilt after corruption: its task and tool
	// were lost with the file.
	Recovered bool `json:"recovered,omitempty"`
	// HookFiles are the settings files owt merged its hooks into. A
	// tracked one is hidden from git with skip-worktree, which hides the
	// agent's own edits too: owt compares it, without its hooks, with HEAD.
	HookFiles []HookFile `json:"hook_files,omitempty"`
	// PR is the pull request owt pr opened for the branch, as last polled.
	PR *PR `json:"pr,omitempty"`
	// Reactions are the reaction sources' memory for this agent (see
	// internal/react), by reaction name: kept apart from Status, so no
	// status change resets an attempt count.
	Reactions map[string]*Reaction `json:"reactions,omitempty"`
	// Spawner is the agent that started this one with owt mcp's
	// spawn_agent (its executor reports back to it); SpawnDepth is how
	// many spawns deep it is (1 for the spawner's executors).
	Spawner    string `json:"spawner,omitempty"`
	SpawnDepth int    `json:"spawn_depth,omitempty"`
	// Swarm is set on a swarm worker (owt swarm): a record of its own,
	// named HOST/ROLE, for an agent in its own window of the session of
	// the worktree HOST, whose Path, Branch and Session it shares. It
	// owns no worktree: deleting HOST stops it.
	Swarm *SwarmRole `json:"swarm,omitempty"`
	// ReadOnly starts the agent in its tool's read-only mode (a swarm's
	// researcher and reviewer), enforced by the tool.
	ReadOnly bool `json:"read_only,omitempty"`
	// AgentSession is the tool's own session id and Transcript its
	// transcript file, as its hooks last named them (Claude Code's
	// session_id and transcript_path): the monitor reads the agent's
	// tokens from it (internal/usage).
	AgentSession string `json:"agent_session,omitempty"`
	Transcript   string `json:"transcript,omitempty"`
	// Sessions are every tool session id hooks named in this life
	// (oldest first, at most MaxSessions): the usage tracker counts only
	// their files, not an earlier agent's in the same folder.
	Sessions []string `json:"sessions,omitempty"`
	// Resume is how owt last started the agent again in its existing
	// worktree (owt restore, owt attach, doctor --fix, a run's resume):
	// the runner resumes the tool's own session while Outcome is pending.
	Resume *Resume `json:"resume,omitempty"`
	// Resolve is the conflict handed to the agent to resolve in its
	// worktree (owt resolve), until the worktree goes.
	Resolve *Resolving `json:"resolve,omitempty"`
}

// MadeFile is a file owt's own dependency install wrote into a worktree.
type MadeFile struct {
	Path   string `json:"path"`   // relative to the worktree, slash-separated
	SHA256 string `json:"sha256"` // hex, of the content the install left
}

// Unchanged reports whether the file is still what the install left in
// the worktree at dir: a regular file with the same content.
func (m MadeFile) Unchanged(dir string) bool {
	sum, ok := FileSHA256(filepath.Join(dir, filepath.FromSlash(m.Path)))
	return ok && m.SHA256 != "" && sum == m.SHA256
}

// FileSHA256 is the hex SHA-256 of the regular file at path; false when
// it is not one or cannot be read.
func FileSHA256(path string) (string, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Resume outcomes: pending (owt asked for a resume; the runner has not
// started the tool yet), resuming (the tool was started with its resume
// option and has not yet shown it took it), resumed (it did: its screen
// came up and it stayed, or a hook named the same session), fresh (it
// could not resume, or there was nothing to resume: the tool was started
// anew with the task and an account of the work in the worktree).
const (
	ResumePending  = "pending"
	ResumeResuming = "resuming"
	ResumeResumed  = "resumed"
	ResumeFresh    = "fresh"
)

// Resume is one start of an agent again in its worktree.
type Resume struct {
	Outcome string `json:"outcome"`
	// Session is the tool's session id it resumes ("" = none known).
	Session string `json:"session,omitempty"`
	// Why says why it started fresh.
	Why string    `json:"why,omitempty"`
	At  time.Time `json:"at,omitzero"`
}

// Settled reports whether the resume is over: resumed or started fresh.
func (r *Resume) Settled() bool {
	return r != nil && (r.Outcome == ResumeResumed || r.Outcome == ResumeFresh)
}

// SwarmRole is what a swarm worker is: its host worktree, its role, the
// swarm's goal, the commit the host's branch was at when the swarm
// started, and the files its tool reported writing (hook payloads), for
// the tester's check.
type SwarmRole struct {
	Host   string   `json:"host"`
	Role   string   `json:"role"`
	Goal   string   `json:"goal,omitempty"`
	Start  string   `json:"start,omitempty"`
	Edited []string `json:"edited,omitempty"`
}

// WorkerOf reports whether r is a swarm worker of the worktree host.
func (r *Record) WorkerOf(host string) bool { return r.Swarm != nil && r.Swarm.Host == host }

// MaxSessions is how many session ids a record keeps.
const MaxSessions = 32

// NoteSession adds the tool session id to the life's Sessions, dropping
// the oldest past MaxSessions; it reports whether it was new.
func (r *Record) NoteSession(id string) bool { return noteID(&r.Sessions, id, MaxSessions) }

// MaxOtherSessions is how many OtherSessions a record keeps.
const MaxOtherSessions = 16

// NoteOtherSession adds the tool session id to OtherSessions (not the
// agent's), dropping the oldest past MaxOtherSessions; it reports
// whether it was new.
func (r *Record) NoteOtherSession(id string) bool {
	return noteID(&r.OtherSessions, id, MaxOtherSessions)
}

// noteID adds id to ids unless it is there or "", keeping the latest
// most; it reports whether it was new.
func noteID(ids *[]string, id string, most int) bool {
	if id == "" || slices.Contains(*ids, id) {
		return false
	}
	*ids = append(*ids, id)
	if n := len(*ids); n > most {
		*ids = append([]string(nil), (*ids)[n-most:]...)
	}
	return true
}

// LifeEnv is the variable that carries Record.Life in the session owt
// made for that agent: its runner tells its own record from a later
// agent's of the same name.
const LifeEnv = "OWT_LIFE"

// NewLife is a fresh random id for an agent's life (Record.Life).
func NewLife() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on the systems owt runs on; the
		// clock still tells two lives apart.
		return fmt.Sprintf("t%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// HookRing is how many hook events a record keeps.
const HookRing = 8

// HookEvent is one hook event that reached the record: its name as the
// tool fired it (only events owt maps get here), the detail that decided
// its status (a Notification's type), the status it reported and when.
type HookEvent struct {
	Event  string    `json:"event"`
	Detail string    `json:"detail,omitempty"`
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
}

// AddHook appends ev to the record's ring, dropping the oldest past
// HookRing.
func (r *Record) AddHook(ev HookEvent) {
	r.Hooks = append(r.Hooks, ev)
	if n := len(r.Hooks); n > HookRing {
		r.Hooks = append([]HookEvent(nil), r.Hooks[n-HookRing:]...)
	}
}

// ScreenEvidence is what a screen reading said, and why: the status it
// read, the classifier's rule and the rows the rule matched (the agent's
// words), and whether it set the status (correcting Was from WasSource)
// or confirmed the one recorded.
type ScreenEvidence struct {
	Status   Status                `json:"status"`
	Rule     string                `json:"rule"`
	RuleText string                `json:"rule_text"`
	Lines    []untrusted.Untrusted `json:"lines,omitempty"`
	// Set: the reading changed the status; else it confirmed it.
	Set       bool   `json:"set,omitempty"`
	Was       Status `json:"was,omitempty"`
	WasSource Source `json:"was_source,omitempty"`
	// Interrupted: an interrupt mark showed under the ended turn; Mark is
	// its row (the agent's screen).
	Interrupted bool                `json:"interrupted,omitempty"`
	Mark        untrusted.Untrusted `json:"mark,omitzero"`
	At          time.Time           `json:"at"`
}

// DoneSignal is one owt done: the agent's own word that its task ended.
// At most one of Fail and Blocked is set; with neither, it says finished.
type DoneSignal struct {
	Summary untrusted.Untrusted `json:"summary,omitzero"`
	Fail    untrusted.Untrusted `json:"fail,omitzero"`    // why the task failed (owt done --fail)
	Blocked untrusted.Untrusted `json:"blocked,omitzero"` // the question it needs answered (owt done --blocked)
	At      time.Time           `json:"at"`
}

// HookFile is a settings file owt merged its hooks into, relative to the
// worktree (slash-separated), and whether the branch tracks it.
type HookFile struct {
	Path    string `json:"path"`
	Tracked bool   `json:"tracked,omitempty"`
	// Excluded: owt added the file's line to info/exclude (it was not
	// there before), so owt removes it again once no worktree needs it.
	Excluded bool `json:"excluded,omitempty"`
	// For an in-place agent (the file is the user's checkout's), what was
	// there before owt merged its hooks in, so owt can put it back:
	// Existed and its bytes Prior, and MadeDir when owt made its folder.
	Existed bool   `json:"existed,omitempty"`
	Prior   []byte `json:"prior,omitempty"`
	MadeDir bool   `json:"made_dir,omitempty"`
}

// SetStatus changes the status and its bookkeeping; it reports whether
// anything changed.
func (r *Record) SetStatus(s Status, src Source, now time.Time) bool {
	if r.Status == s && r.Source == src {
		return false
	}
	if r.Status != s {
		r.StatusSince = now
	}
	r.Status, r.Source = s, src
	return true
}

// CreateLock is the key of the lock owt new holds while it creates the
// worktree called name in repo.
func CreateLock(repo, name string) string { return "create\x00" + Key{Repo: repo, Name: name}.String() }

// File is one repository's records, as Update and Load give them: every
// record file of the repository read.
type File struct {
	Version int                `json:"version"`
	Repo    string             `json:"repo"`
	Records map[string]*Record `json:"worktrees"`
}

// Sorted returns the records ordered by creation time, then name; a swarm
// worker comes right after its host, the workers by age.
func (f *File) Sorted() []*Record {
	out := make([]*Record, 0, len(f.Records))
	for _, r := range f.Records {
		out = append(out, r)
	}
	// place is where a record goes among the worktrees: its host's place
	// for a worker.
	place := func(r *Record) *Record {
		if r.Swarm != nil {
			if h, ok := f.Records[r.Swarm.Host]; ok {
				return h
			}
		}
		return r
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := place(out[i]), place(out[j])
		if a != b {
			if !a.CreatedAt.Equal(b.CreatedAt) {
				return a.CreatedAt.Before(b.CreatedAt)
			}
			return a.Name < b.Name
		}
		if (out[i].Swarm == nil) != (out[j].Swarm == nil) {
			return out[i].Swarm == nil // the host first
		}
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].Name < out[j].Name
	})
	return underSpawners(out)
}

// underSpawners puts each spawned agent right after its spawner (and
// that one's other spawns), keeping the order otherwise: a list shows
// who started whom.
func underSpawners(recs []*Record) []*Record {
	byName := make(map[string]bool, len(recs))
	for _, r := range recs {
		byName[r.Name] = true
	}
	children := map[string][]*Record{}
	var roots []*Record
	for _, r := range recs {
		if r.Spawner != "" && r.Spawner != r.Name && byName[r.Spawner] {
			children[r.Spawner] = append(children[r.Spawner], r)
		} else {
			roots = append(roots, r)
		}
	}
	out := make([]*Record, 0, len(recs))
	seen := make(map[string]bool, len(recs))
	var add func(r *Record)
	add = func(r *Record) {
		if seen[r.Name] {
			return
		}
		seen[r.Name] = true
		out = append(out, r)
		for _, c := range children[r.Name] {
			add(c)
		}
	}
	for _, r := range roots {
		add(r)
	}
	for _, r := range recs { // a cycle of spawners (hand-edited state)
		add(r)
	}
	return out
}

// Dir is owt's state directory.
func Dir() string { return filepath.Join(xdg.StateHome, "owt") }

func reposDir() string { return filepath.Join(Dir(), "repos") }

// ReposDir holds the state files: each repository's index and the folder
// of its record files (store.go). A watcher learns of a change from
// Signature or a Reader, not from this folder's time: a record's write
// renames a file into its repository's folder.
func ReposDir() string { return reposDir() }

// Store is the state of one repository: its index file at Path and a
// record file per agent in the folder beside it (store.go).
type Store struct {
	Repo string
	Path string
	// Rebuild fills an empty File from git and tmux when stored records
	// were corrupt; only the records lost are taken from it.
	Rebuild func(*File) error
	// Warn reports a recovered corruption; defaults to a line on stderr.
	Warn func(string)
}

// ForRepo returns the store of the repository rooted at repoRoot. The file
// name keeps the repo's base name readable and a hash of its path unique.
func ForRepo(repoRoot string) *Store {
	sum := sha256.Sum256([]byte(repoRoot))
	name := sanitize(filepath.Base(repoRoot)) + "-" + hex.EncodeToString(sum[:])[:12] + ".json"
	return &Store{Repo: repoRoot, Path: filepath.Join(reposDir(), name)}
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "repo"
	}
	return b.String()
}

// ErrCorrupt marks a state file that cannot be read.
var ErrCorrupt = errors.New("state file is corrupt")

// ErrNewer marks a state file written by a newer owt: it is not corrupt,
// and must be left alone.
var ErrNewer = errors.New("state file was written by a newer owt")

// ErrUnknownName is returned for a name with no record in this repo.
var ErrUnknownName = errors.New("no such worktree")

// AgentIDEnv is the variable that carries Record.AgentID in the agent's
// own environment, and so in its hooks'; not in its session's, where the
// user's shells would have it.
const AgentIDEnv = "OWT_AGENT_ID"

// ErrNoChange, returned by an Update function, ends the update without
// writing and without error: the hot path of a hook that changes nothing
// skips the write and its fsync.
var ErrNoChange = errors.New("nothing to change")

// WithLock runs fn holding an exclusive lock named name in the state dir;
// owt uses it for choices that span repositories, like port blocks.
func WithLock(name string, fn func() error) error {
	if err := os.MkdirAll(Dir(), 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	lock := flock.New(filepath.Join(Dir(), name+".lock"))
	if err := waitLock(lock, false); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// FirstPrompt is what the agent is started with: the composed prompt,
// else the task.
func (r *Record) FirstPrompt() string {
	if r.Prompt != "" {
		return r.Prompt
	}
	return r.Task
}
