// Package control builds the control plane: every agent and run task of
// one repository (or all) sorted into the decisions they wait for — NEEDS
// YOU, READY TO SHIP, IN FLIGHT, QUEUED, ENDED — and the recent events, and it
// holds the verbs those rows offer (ship, merge, delete, send, retry, skip,
// pause) as the one core both the popup and the CLI call.
//
// Building a board is pure: Build takes what the records, runs and caches
// say and decides where each row goes, so it is tested without tmux or git.
package control

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Section is where a row stands, in the order the popup shows them.
type Section int

// The sections, top to bottom.
const (
	NeedsYou Section = iota
	ReadyToShip
	InFlight
	Queued
	// Ended are agents whose run task ended (landed, skipped, cancelled)
	// or that exited with nothing to ship: not in flight any more.
	Ended
	Recent
	// Background is what owt did on its own: the memory's last
	// consolidation of each repository and what it found.
	Background
)

func (s Section) String() string {
	return [...]string{"NEEDS YOU", "READY TO SHIP", "IN FLIGHT", "QUEUED", "ENDED", "RECENT", "BACKGROUND"}[s]
}

// IsLog says the section's rows are events, not agents or tasks.
func (s Section) IsLog() bool { return s == Recent || s == Background }

// Row is one line of the board. An agent row has Name (its worktree); a
// run task row has Run and TaskID, and Name too once its worktree exists;
// an event row has Event. Fields other sources fill later (PR, from the
// forge) stay empty until they do.
type Row struct {
	Section Section `json:"section"`
	Name    string  `json:"name,omitempty"`
	Repo    string  `json:"repo"`
	// Status is the agent's status or, for a task without an agent, the
	// task's state.
	Status string `json:"status"`
	// Why says why the row is in its section: what a waiting agent waits
	// for, the predicted conflict, what a queued task waits for.
	Why   string    `json:"why,omitempty"`
	Task  string    `json:"task,omitempty"`
	Since time.Time `json:"since"`
	// The run task behind the row, if any.
	Run         string `json:"run,omitempty"`
	TaskID      string `json:"task_id,omitempty"`
	TaskState   string `json:"task_state,omitempty"`
	Attempt     int    `json:"attempt,omitempty"`
	MaxAttempts int    `json:"max_attempts,omitempty"`
	// Sending is the message the outbox is delivering to the agent.
	Sending string `json:"sending,omitempty"`
	// Git figures, from the cache (never computed per redraw).
	Ahead      int `json:"ahead"`
	Dirty      int `json:"dirty"`
	Insertions int `json:"insertions"`
	Deletions  int `json:"deletions"`
	// Prediction is the queue's word on landing it: "merges cleanly" or
	// "conflicts in a.go"; Checks the last checks result of its run task.
	Prediction string `json:"prediction,omitempty"`
	Checks     string `json:"checks,omitempty"`
	// PR is the agent's pull request, when a forge reports one.
	PR string `json:"pr,omitempty"`
	// Event is what happened, for RECENT rows.
	Event string `json:"event,omitempty"`
	// Spawner is the agent that spawned this one (owt mcp).
	Spawner string `json:"spawner,omitempty"`
	// InPlace: the agent works in the user's own checkout, no worktree.
	InPlace bool `json:"in_place,omitempty"`
	// Usage is the agent's tokens and estimated cost ("12.3k tok $0.42"),
	// as the monitor last read them.
	Usage string `json:"usage,omitempty"`
	// Limits are its usage windows where its tool reports them ("5h 82%
	// wk 41%"); LimitsHigh: one is at 80% or more.
	Limits     string `json:"limits,omitempty"`
	LimitsHigh bool   `json:"limits_high,omitempty"`
	// StatusWhy is the first line of owt why for the agent: what set its
	// status and what the screen said (drawn under the selected row).
	StatusWhy string `json:"status_why,omitempty"`
	// Host is the configured host a remote agent runs on ("" here).
	Host string `json:"host,omitempty"`
}

// IsRemote says the row is an agent on a host.
func (r Row) IsRemote() bool { return r.Host != "" && r.IsAgent() }

// IsAgent says the row has a worktree the agent verbs act on.
func (r Row) IsAgent() bool { return r.Name != "" && !r.Section.IsLog() }

// IsTask says the row is a run task (retry, skip, pause apply).
func (r Row) IsTask() bool { return r.Run != "" && r.TaskID != "" && !r.Section.IsLog() }

// Board is the control plane at one moment.
type Board struct {
	Title string `json:"title"`
	// Progress sums up the active runs: "run api: 3/7 done".
	Progress []string `json:"progress,omitempty"`
	Rows     []Row    `json:"rows"`
}

// In returns the rows of section s, in order.
func (b Board) In(s Section) []Row {
	var out []Row
	for _, r := range b.Rows {
		if r.Section == s {
			out = append(out, r)
		}
	}
	return out
}

// Input is what a board is built from.
type Input struct {
	Title   string
	Items   []lifecycle.Item
	Records []*state.Record
	Runs    []*run.Run
	// Queue is each repository's merge queue, when it has been computed:
	// READY TO SHIP follows its order and shows its prediction.
	Queue map[string]land.Queue // by repo
	// Events are the recent events, any order.
	Events []Event
	// Loops are the pairs of agents whose messages the loop guard of owt
	// mcp refused lately: the sender needs the user.
	Loops []outbox.Loop
	// Dreams are the last memory consolidation of each repository.
	Dreams []memory.Last
}

// Event is one line of RECENT.
type Event struct {
	At     time.Time `json:"at"`
	Repo   string    `json:"repo,omitempty"`
	Run    string    `json:"run,omitempty"`
	Name   string    `json:"name,omitempty"` // worktree or task
	Event  string    `json:"event"`
	Detail string    `json:"detail,omitempty"`
}

// DefaultRecent is how many events RECENT shows.
const DefaultRecent = 8

// Build sorts every agent and task into its section.
func Build(in Input, now time.Time) Board {
	b := Board{Title: in.Title}
	recs := map[state.Key]*state.Record{}
	for _, r := range in.Records {
		recs[r.Key()] = r
	}
	tasks := taskIndex(in.Runs)
	queued := queueIndex(in.Queue)
	shown := map[state.Key]bool{}
	for _, it := range in.Items {
		key := state.Key{Repo: it.Repo, Name: it.Name}
		shown[key] = true
		row := agentRow(it, recs[key], tasks[key], queued[key], now)
		if why := loopOf(in.Loops, it.Repo, it.Name); why != "" {
			if row.Section == NeedsYou && row.Why != "" {
				why = row.Why + "; " + why
			}
			row.Section, row.Why = NeedsYou, why
		}
		b.Rows = append(b.Rows, row)
	}
	for _, r := range in.Runs {
		if r.State == run.Finished {
			continue
		}
		b.Progress = append(b.Progress, progress(r))
		if r.State == run.Paused && r.Why != "" {
			// A run owt paused itself (its token budget, a restarted
			// server) waits for the user's owt run resume.
			b.Rows = append(b.Rows, Row{Section: NeedsYou, Repo: r.Repo, Run: r.Name, TaskID: "", Status: string(r.State),
				Why: r.Why, Since: r.UpdatedAt})
		}
		for _, t := range r.Tasks {
			if t.Name != "" && shown[state.Key{Repo: r.Repo, Name: t.Name}] {
				continue // its agent's row carries it
			}
			if row, ok := taskRow(r, t, now); ok {
				b.Rows = append(b.Rows, row)
			}
		}
	}
	b.Rows = append(b.Rows, recentRows(in.Events)...)
	b.Rows = append(b.Rows, backgroundRows(in.Dreams)...)
	sortRows(b.Rows, queued)
	plainRows(b.Rows)
	return b
}

// loopOf says why the agent name of repo needs the user for a message
// loop it is in as the sender, "" if it is in none.
func loopOf(loops []outbox.Loop, repo, name string) string {
	var pairs []string
	for _, l := range loops {
		if l.Repo == repo && l.From == name {
			pairs = append(pairs, fmt.Sprintf("%s → %s (%s; %d refused; owt dismiss %s)", l.From, l.To, l.Why, l.Refused, l.From))
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	return "message loop: " + strings.Join(pairs, ", ")
}

type taskRef struct {
	run  *run.Run
	task *run.TaskRun
}

// taskIndex finds the run task of each worktree, by repo and name.
func taskIndex(runs []*run.Run) map[state.Key]taskRef {
	out := map[state.Key]taskRef{}
	for _, r := range runs {
		for _, t := range r.Tasks {
			if t.Name != "" {
				out[state.Key{Repo: r.Repo, Name: t.Name}] = taskRef{r, t}
			}
		}
	}
	return out
}

type queuePlace struct {
	index int
	entry land.QueueEntry
}

func queueIndex(qs map[string]land.Queue) map[state.Key]queuePlace {
	out := map[state.Key]queuePlace{}
	for repo, q := range qs {
		for i, e := range q.Entries {
			out[state.Key{Repo: repo, Name: e.Name}] = queuePlace{i + 1, e}
		}
	}
	return out
}

func agentRow(it lifecycle.Item, rec *state.Record, ref taskRef, q queuePlace, now time.Time) Row {
	row := Row{
		Name: it.Name, Repo: it.Repo, Status: it.Status, Task: firstLine(it.Task.Block()), Since: it.StatusSince,
		Ahead: it.Ahead, Dirty: it.Dirty, Insertions: it.Insertions, Deletions: it.Deletions,
		PR: it.PR.Summary(), Spawner: it.Spawner, InPlace: it.InPlace,
	}
	if it.Usage != nil && it.Usage.TotalTokens > 0 {
		row.Usage = usage.FormatTokens(it.Usage.TotalTokens) + " tok " + usage.FormatCost(it.Usage)
	}
	if it.Usage != nil {
		ls := it.Usage.Limits.Current(now)
		row.Limits = ls.Brief()
		for _, l := range ls {
			row.LimitsHigh = row.LimitsHigh || l.UsedPercent >= 80
		}
	}
	if ref.task != nil {
		withTask(&row, ref.run, ref.task)
	}
	if q.index > 0 {
		row.Prediction = "merges cleanly"
		if !q.entry.Clean {
			row.Prediction = "conflicts in " + strings.Join(q.entry.Conflicts, ", ")
		}
	}
	row.Section, row.Why = agentSection(it, rec, ref.task, q, now)
	if it.Host != "" {
		row.Host = it.Host
		row.Section, row.Why = remoteSection(it, ref.task)
	}
	if rec != nil {
		row.StatusWhy = status.WhyLine(rec, now)
	}
	return row
}

// agentSection decides where an agent stands: what needs the user first,
// then finished work with something to land, then the rest in flight.
func agentSection(it lifecycle.Item, rec *state.Record, t *run.TaskRun, q queuePlace, now time.Time) (Section, string) {
	if t != nil {
		switch t.State {
		case run.NeedsYou, run.Failed, run.Blocked:
			return NeedsYou, orText(t.Why, taskFailure(t), string(t.State))
		case run.Landed, run.Skipped, run.Cancelled:
			return Ended, string(t.State)
		case run.Starting:
			// Its last agent may have exited already (a retry restarts it).
			return InFlight, fmt.Sprintf("attempt %d starting", t.Attempt)
		case run.Backoff:
			return InFlight, orText(t.Why, "retry pending")
		}
	}
	if rec != nil && rec.Done != nil {
		switch {
		case !rec.Done.Blocked.Empty():
			return NeedsYou, "blocked: " + rec.Done.Blocked.Line()
		case !rec.Done.Fail.Empty():
			return NeedsYou, "failed: " + rec.Done.Fail.Line()
		}
	}
	switch {
	case it.Status == string(state.Waiting):
		return NeedsYou, orText(it.WaitingFor, "input")
	case it.Status == string(state.Limited):
		return NeedsYou, it.Limit.Why(now)
	case len(it.NeedsYou) > 0:
		return NeedsYou, strings.Join(it.NeedsYou, "; ")
	case !it.TurnError.Empty():
		return NeedsYou, "turn failed: " + it.TurnError.Line()
	case it.Creating == "interrupted":
		return NeedsYou, "create interrupted: owt doctor --fix"
	case it.Missing:
		return NeedsYou, "worktree missing"
	}
	if rec != nil && rec.Resolve != nil && !(q.index > 0 && !q.entry.Clean) {
		return resolveSection(it, rec.Resolve)
	}
	finished := it.Status == string(state.Idle) || it.Status == string(state.Exited) || (t != nil && t.State == run.Done)
	if finished && (it.Ahead > 0 || it.Dirty > 0 || q.index > 0) {
		if q.index > 0 && !q.entry.Clean {
			return NeedsYou, "conflicts with " + q.entry.Base + " in " + strings.Join(q.entry.Conflicts, ", ")
		}
		return ReadyToShip, changes(it)
	}
	if finished && it.FiguresPending && it.FiguresAt == nil {
		// The monitor has not counted its changes yet: none known is not
		// none (it moves to READY TO SHIP when they come).
		if it.Status == string(state.Exited) {
			return InFlight, exited(it) + ", changes not counted yet"
		}
		return InFlight, "changes not counted yet"
	}
	if it.Status == string(state.Exited) {
		return Ended, exited(it) + ", no changes"
	}
	if finished {
		return InFlight, "no changes yet"
	}
	return InFlight, ""
}

// remoteSection is where an agent on a host stands: its run task's
// decision first, then its status (waiting needs the user); its git
// figures are not known here, so nothing of it is READY TO SHIP.
func remoteSection(it lifecycle.Item, t *run.TaskRun) (Section, string) {
	on := "on host " + it.Host
	if it.Unreachable {
		on += ", unreachable (last " + it.Status + ")"
	}
	if t != nil {
		switch t.State {
		case run.NeedsYou, run.Failed, run.Blocked:
			return NeedsYou, orText(t.Why, taskFailure(t), string(t.State))
		case run.Landed, run.Skipped, run.Cancelled:
			return Ended, string(t.State) + ", " + on
		}
	}
	switch it.Status {
	case string(state.Waiting):
		return NeedsYou, "waiting, " + on
	case string(state.Exited):
		return Ended, "exited, " + on
	}
	return InFlight, on
}

// resolveSection is where an agent resolving a conflict owt handed it
// stands: in flight while it works, READY TO SHIP only once owt verified
// its work, NEEDS YOU with owt's reason when it is not right.
func resolveSection(it lifecycle.Item, r *state.Resolving) (Section, string) {
	switch {
	case it.Status == string(state.Working) || it.Status == string(state.Starting):
		return InFlight, "resolving its conflicts with " + r.Target
	case !r.Told:
		return NeedsYou, "resolve: its agent was not told (" + r.Untold + "): owt resolve " + it.Name
	case r.Ready():
		return ReadyToShip, "conflicts with " + r.Target + " resolved by the agent, verified"
	case r.Verdict != "":
		return NeedsYou, "resolve not ready: " + r.Verdict
	}
	return InFlight, "resolved? owt checks its work"
}

func exited(it lifecycle.Item) string {
	if it.ExitCode != nil {
		return fmt.Sprintf("exited (code %d)", *it.ExitCode)
	}
	return "exited"
}

func changes(it lifecycle.Item) string {
	s := fmt.Sprintf("%d commit(s)", it.Ahead)
	if it.Dirty > 0 {
		s += fmt.Sprintf(", %d uncommitted", it.Dirty)
	}
	return s
}

// withTask adds what the run says about the row's task.
func withTask(row *Row, r *run.Run, t *run.TaskRun) {
	row.Run, row.TaskID, row.TaskState = r.Name, t.ID, string(t.State)
	row.Attempt, row.MaxAttempts = t.Attempt, r.AttemptsOf(t)
	if t.Sending != nil {
		row.Sending = t.Sending.Kind
	}
	if t.Evidence != nil {
		row.Checks = t.Evidence.Checks
	}
	if row.Task == "" {
		if pt, ok := r.Plan.TaskByID(t.ID); ok {
			row.Task = firstLine(pt.Task)
		}
	}
}

// taskRow is the row of a run task no agent row shows: one not started
// yet, waiting, or one that needs the user. Ended tasks have no row.
func taskRow(r *run.Run, t *run.TaskRun, now time.Time) (Row, bool) {
	row := Row{Repo: r.Repo, Name: t.Name, Status: string(t.State), Since: t.Since}
	withTask(&row, r, t)
	switch t.State {
	case run.Pending:
		row.Section, row.Why = Queued, waitsFor(r, t)
	case run.Backoff:
		row.Section, row.Why = Queued, "retry in "+workspace.Age(max(0, t.NextStart.Sub(now)))
	case run.NeedsYou, run.Failed, run.Blocked:
		row.Section, row.Why = NeedsYou, orText(t.Why, taskFailure(t), blockedBy(t), string(t.State))
	case run.Starting, run.Running:
		row.Section = InFlight
	case run.Done:
		row.Section, row.Why = ReadyToShip, "done"
	default:
		return Row{}, false
	}
	return row, true
}

func taskFailure(t *run.TaskRun) string {
	if t.Failure == nil {
		return ""
	}
	return t.Failure.Class + ": " + t.Failure.Error.Line()
}

func blockedBy(t *run.TaskRun) string {
	if len(t.BlockedBy) == 0 {
		return ""
	}
	return "blocked by " + strings.Join(t.BlockedBy, ", ")
}

// waitsFor names the parents a pending task waits for.
func waitsFor(r *run.Run, t *run.TaskRun) string {
	pt, ok := r.Plan.TaskByID(t.ID)
	if !ok {
		return ""
	}
	var open []string
	for _, dep := range pt.DependsOn {
		if d, ok := r.Task(dep); ok && d.State != run.Landed && d.State != run.Done && d.State != run.Skipped {
			open = append(open, dep)
		}
	}
	if len(open) == 0 {
		if r.State != run.Active {
			return "run " + string(r.State)
		}
		return "waits for a free slot"
	}
	return "waits for " + strings.Join(open, ", ")
}

func progress(r *run.Run) string {
	n := r.Counts()
	done := n[run.Done] + n[run.Landed] + n[run.Skipped]
	s := fmt.Sprintf("run %s: %d/%d done", r.Name, done, len(r.Tasks))
	if r.State != run.Active {
		s += " (" + string(r.State) + ")"
	}
	return s
}

func recentRows(evs []Event) []Row {
	limit := DefaultRecent
	sorted := append([]Event(nil), evs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].At.After(sorted[j].At) })
	if len(sorted) > limit {
		sorted = sorted[:limit]
	}
	rows := make([]Row, len(sorted))
	for i, ev := range sorted {
		rows[i] = Row{Section: Recent, Repo: ev.Repo, Name: ev.Name, Run: ev.Run, Event: ev.Event, Why: ev.Detail, Since: ev.At}
	}
	return rows
}

// backgroundRows are each repository's last consolidation — its summary,
// then what it found (at most maxFound lines) — then the summaries of
// the passes before it, newest first, up to memory.KeptPasses in all.
func backgroundRows(dreams []memory.Last) []Row {
	const maxFound = 5
	var rows []Row
	for _, d := range dreams {
		if len(d.Lines) == 0 {
			continue
		}
		rows = append(rows, Row{Section: Background, Repo: d.Repo, Name: "memory", Event: "consolidated", Why: d.Lines[0], Since: d.At})
		found := d.Lines[1:]
		if len(found) > maxFound {
			found = append(found[:maxFound:maxFound], fmt.Sprintf("… %d more: owt memory reports", len(d.Lines)-1-maxFound))
		}
		for _, l := range found {
			rows = append(rows, Row{Section: Background, Repo: d.Repo, Name: "memory", Event: "found", Why: l, Since: d.At})
		}
		for i, e := range d.Earlier {
			if i == memory.KeptPasses-1 {
				break
			}
			if len(e.Lines) > 0 {
				rows = append(rows, Row{Section: Background, Repo: d.Repo, Name: "memory", Event: "consolidated", Why: e.Lines[0], Since: e.At})
			}
		}
	}
	return rows
}

// sortRows orders each section: NEEDS YOU longest waiting first, READY TO
// SHIP in queue order, IN FLIGHT, QUEUED and ENDED oldest first, RECENT as
// built.
func sortRows(rows []Row, queued map[state.Key]queuePlace) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Section != b.Section {
			return a.Section < b.Section
		}
		switch a.Section {
		case Recent, Background:
			return false
		case ReadyToShip:
			qa, qb := queued[a.key()].index, queued[b.key()].index
			if qa != qb && qa > 0 && qb > 0 {
				return qa < qb
			}
			if (qa > 0) != (qb > 0) {
				return qa > 0
			}
		}
		if !a.Since.Equal(b.Since) {
			return a.Since.Before(b.Since)
		}
		return a.Repo+a.Name+a.TaskID < b.Repo+b.Name+b.TaskID
	})
	underSpawners(rows)
}

// underSpawners moves each spawned agent's row right after its spawner's
// when both are in one section (NEEDS YOU keeps its own order: what needs
// the user comes first whoever spawned it).
func underSpawners(rows []Row) {
	for start := 0; start < len(rows); {
		end := start
		for end < len(rows) && rows[end].Section == rows[start].Section {
			end++
		}
		if rows[start].Section != NeedsYou && !rows[start].Section.IsLog() {
			arrange(rows[start:end])
		}
		start = end
	}
}

// key is the agent a row is of (a task's row without one: its run's repo
// and the task's worktree name, if any).
func (r Row) key() state.Key { return state.Key{Repo: r.Repo, Name: r.Name} }

func arrange(sec []Row) {
	at := map[state.Key]bool{}
	for _, r := range sec {
		at[r.key()] = true
	}
	kids := map[state.Key][]Row{}
	var roots []Row
	for _, r := range sec {
		if k := (state.Key{Repo: r.Repo, Name: r.Spawner}); r.Spawner != "" && at[k] {
			kids[k] = append(kids[k], r)
		} else {
			roots = append(roots, r)
		}
	}
	out := sec[:0:0]
	type rowKey struct {
		state.Key
		task string
	}
	seen := map[rowKey]bool{}
	var add func(Row)
	add = func(r Row) {
		k := rowKey{r.key(), r.TaskID}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, r)
		for _, c := range kids[r.key()] {
			add(c)
		}
	}
	for _, r := range roots {
		add(r)
	}
	for _, r := range sec {
		add(r)
	}
	copy(sec, out)
}

func orText(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
