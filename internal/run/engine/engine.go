package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Engine drives the runs of one tmux server: the monitor of that server
// calls Tick on each of its ticks. It starts ready tasks through the same
// Create as owt new, judges running ones on evidence (Judge) and records
// what it decided in the run's state and event log.
type Engine struct {
	Store run.Store
	// Socket is the tmux server the engine's monitor watches: a run
	// registered on another server is that server's to drive.
	Socket string
	Tmux   *tmux.Client
	// Log writes one entry of owt.log about the repository and agent
	// named in f.
	Log func(f owtlog.Fields, format string, args ...any)
	// Server is the identity of that server's run (tmux.ServerIdentity):
	// a run registered under another run of it waits for owt run resume.
	Server string
	// Jitter is the random part of backoffs; nil is math/rand.
	Jitter run.Jitter
	// PaneActivity is when a pane last showed output (the monitor's
	// snapshot); nil or zero: unknown, only hooks count as activity.
	PaneActivity func(pane string) time.Time
	// UserOnPane reports whether the user's client is on a pane: the
	// agent's clock stops then. nil: never (see userOnPane).
	UserOnPane func(pane string) bool
	// Notify tells the user about a task that needs them, once per task
	// (engine_end.go): the monitor's notifier. nil: nobody is told.
	Notify func(rec *state.Record, n run.Notice)

	// Outbox is where messages to agents are queued (default: the state
	// dir's); the monitor's send.Courier delivers them.
	Outbox outbox.Box

	checks jobs // the checks running in the background
	// remoteJobs are the ssh steps of tasks on hosts running in the
	// background, and remote their results (engine_remote.go).
	remoteJobs jobs
	remote     remoteResults
	opening    jobs                         // the pull requests being opened, one per run
	dirMod     time.Time                    // the runs dir's mtime when it was last listed
	live       []string                     // the runs in flight at the last listing
	sigs       map[string]fileSig           // their files at that listing (engine_files.go)
	observed   map[string]cachedObservation // by run/task: see observeCached
	bar        string                       // the status bar's runs text last set (engine_bar.go)
	targets    map[outbox.Agent]string      // the into of each live run's task agents (engine_targets.go)
	barSet     bool
	said       map[string]string // the last problem logged of each run and of the listing (engine_said.go)
	works      run.WorkMemo      // the last reading of each task's branch (work.go)

	// intoChecked is when each run's into was last looked at
	// (engine_into.go).
	intoChecked map[string]time.Time
	// ended are this server's ended runs with work landed in into, watched
	// so they too are landed only while into holds it (engine_into.go).
	ended []endedRun
}

// Tick is one look at the runs. With no run in flight it costs one stat
// of the runs dir.
func (e *Engine) Tick(now time.Time) {
	if e.targets == nil {
		e.targets = map[outbox.Agent]string{}
	}
	clear(e.targets)
	fi, err := os.Stat(e.Store.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		e.logf("", "", "runs: %v", err)
		return
	}
	if !fi.ModTime().Equal(e.dirMod) || e.liveFilesChanged() {
		e.dirMod = fi.ModTime()
		e.live = e.inFlight()
	}
	for _, name := range e.live {
		e.sayOnce("run "+name, e.step(name, now))
	}
	e.watchEnded(now)
}

// logf logs about a run of repo ("" for none) and the agent of one of
// its tasks ("" for none).
func (e *Engine) logf(repo, agent, format string, args ...any) {
	if e.Log != nil {
		e.Log(owtlog.Fields{Repo: repo, Agent: agent, Event: "run"}, format, args...)
	}
}

// inFlight names this server's runs that may start a task or have agents
// to judge.
func (e *Engine) inFlight() []string {
	runs, err := e.Store.List()
	unreadable, err := e.keepUnreadable(err)
	e.sayOnce("runs", err)
	e.publishBar(runs, unreadable)
	var names []string
	e.ended = e.ended[:0]
	for _, r := range runs {
		if e.drives(r) {
			names = append(names, r.Name)
		} else if r.Socket == e.Socket && r.Into != "" && len(r.LandedIDs()) > 0 {
			e.ended = append(e.ended, endedRun{name: r.Name, repo: r.Repo, into: r.Into, held: r.IntoHeld})
		}
	}
	names = append(names, unreadable...) // still this engine's: driven again once readable
	e.noteFiles(names)
	return names
}

// drives reports whether r is this engine's to work on now.
func (e *Engine) drives(r *run.Run) bool {
	if r.Socket != e.Socket {
		return false // another server's run (or one that names none: nobody's to guess)
	}
	if r.State == run.Active {
		return true
	}
	for _, t := range r.Tasks {
		if t.State == run.Running || t.State == run.NeedsYou {
			return true // paused or stopped: nothing starts, but agents are still judged
		}
		if t.State == run.Blocked && t.Conflict != nil {
			return true // tried again when a parent's branch moves, even in a failed run
		}
		if t.Sending != nil {
			return true // a message to withdraw (voidMessages), even in a finished run
		}
		if r.Plan.PR && t.State == run.Done && t.PR == 0 && t.Name != "" {
			return true // a pull request still to open (openPRs), even in a finished run
		}
	}
	return false
}

// step judges the run's running tasks, then starts the ready ones.
func (e *Engine) step(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil {
		return err
	}
	if !e.drives(r) {
		return nil
	}
	e.noteTargets(r)
	if held, err := e.recoverRun(r, now); held || err != nil {
		return err
	}
	verdicts := e.judgeAll(r, now)
	if len(verdicts) > 0 {
		err := e.Store.Update(name, func(r *run.Run) ([]run.Event, error) {
			var evs []run.Event
			for _, jv := range verdicts {
				evs = append(evs, apply(r, jv, now)...)
			}
			return append(evs, r.Finish(now)...), nil
		})
		if err != nil {
			return err
		}
	}
	if err := e.pace(name, now); err != nil {
		return err
	}
	if _, err := e.checkInto(r, now); err != nil {
		e.logf(r.Repo, "", "run %s: into: %v", name, err)
	}
	if err := e.landNext(name, now); err != nil {
		return err
	}
	if err := e.recheckConflicts(r, now); err != nil {
		e.logf(r.Repo, "", "run %s: parents' conflicts: %v", name, err)
	}
	if err := e.voidMessages(name, now); err != nil {
		e.logf(r.Repo, "", "run %s: messages: %v", name, err)
	}
	if err := e.openPRs(name, now); err != nil {
		e.logf(r.Repo, "", "run %s: pull requests: %v", name, err)
	}
	if err := e.checkBudget(name, now); err != nil {
		e.logf(r.Repo, "", "run %s: budget: %v", name, err)
	}
	e.nudgeLimited(r, now)
	if err := e.startReady(name, now); err != nil {
		return err
	}
	if err := e.finishIfOver(name, now); err != nil {
		return err
	}
	return e.tellNeeds(name)
}

// finishIfOver finishes a run whose last task ended outside a judgement
// or a landing (a start failure, a timeout's retry running out), and
// reopens a failed one a released task goes on in.
func (e *Engine) finishIfOver(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	const released = "a blocked task can go on"
	if err != nil || len(append(r.Reopen(released, now), r.Finish(now)...)) == 0 {
		return err // (tried on a copy: nothing to write)
	}
	return e.Store.Update(name, func(r *run.Run) ([]run.Event, error) { return append(r.Reopen(released, now), r.Finish(now)...), nil })
}

// judged is the verdict on one task, for the agent it was about.
type judged struct {
	id, name string
	was      run.TaskState
	v        run.Verdict
	jitter   run.Jitter // for a failure's backoff; nil is math/rand
	mail     *mail      // what the outbox holds of the task's message
}

// judgeAll judges each task whose agent lives: running, or waiting for
// the user (who may have answered it).
func (e *Engine) judgeAll(r *run.Run, now time.Time) []judged {
	var out []judged
	var recs map[string]*state.Record
	var statuses map[string]state.HostStatus
	for _, t := range r.Tasks {
		if t.State != run.Running && t.State != run.NeedsYou {
			continue
		}
		if t.Name == "" {
			continue // never started (its base is gone): no agent to judge
		}
		if t.Failure != nil && t.Failure.Class == run.FailLand {
			continue // judged done already; its landing waits for the user
		}
		if e.checks.busy(r.Name + "\x00" + t.ID) {
			continue // its checks run in its worktree: what they write is not yet told apart
		}
		if t.Host != "" {
			if statuses == nil {
				statuses = hostStatuses()
			}
			v, known := e.judgeRemote(r, t, statuses, now)
			if !known || (v.Action == run.KeepWaiting && t.State == run.Running) || (v.Action == run.AskUser && t.State == run.NeedsYou && t.Why == v.Why) {
				continue // nothing new: no locked write this tick
			}
			out = append(out, judged{id: t.ID, name: t.Name, was: t.State, v: v, jitter: e.jitter()})
			continue
		}
		if recs == nil {
			f, err := state.ForRepo(r.Repo).Peek()
			if err != nil {
				e.logf(r.Repo, "", "run %s: read worktree state: %v", r.Name, err)
				return out
			}
			recs = f.Records
		}
		pt, ok := r.Plan.TaskByID(t.ID)
		if !ok {
			continue
		}
		rec := recs[t.Name]
		if rec != nil && !run.IsDir(rec.Path) {
			rec = nil // its folder was removed behind owt's back: gone all the same
		}
		if rec == nil && t.State == run.NeedsYou && saidGone(t) {
			continue // said already: no git process a tick for it
		}
		var v run.Verdict
		if rec == nil {
			v = run.Verdict{Action: run.AskUser, Why: run.GoneWhy(t, true, t.Branch != "" && !git.Repo{Root: r.Repo}.BranchExists(t.Branch))}
		} else {
			key := r.Name + "/" + t.ID
			o, fresh, err := e.observeCached(key, rec, r.Into, now)
			if err == nil {
				o.Uncommitted = t.Memo.Checks.NotCheckOutput(rec.Path, o.Uncommitted)
				v = run.Judge(o, run.CriteriaOf(&r.Plan, pt), t.Memo)
				if !fresh && v.Action != run.KeepWaiting && v.Action != e.observed[key].confirmed {
					// A new decision is made only on what git says now.
					delete(e.observed, key)
					if o, fresh, err = e.observeCached(key, rec, r.Into, now); err == nil {
						o.Uncommitted = t.Memo.Checks.NotCheckOutput(rec.Path, o.Uncommitted)
						v = run.Judge(o, run.CriteriaOf(&r.Plan, pt), t.Memo)
					}
				}
				if fresh {
					e.confirm(key, v.Action)
				}
			}
			if err != nil {
				e.logf(r.Repo, t.Name, "run %s: task %s: %v", r.Name, t.ID, err)
				continue
			}
		}
		jv := judged{id: t.ID, name: t.Name, was: t.State, v: v, jitter: e.jitter()}
		if rec != nil {
			jv.mail = e.act(r, t, rec, pt, v, now)
		}
		if v.Action == run.KeepWaiting && t.State == run.Running && jv.mail == nil {
			continue // nothing to record: no locked write this tick
		}
		out = append(out, jv)
	}
	return out
}

// observe gathers what the judge needs from the agent's record and, once
// its turn is over, from git (the task's own branch, workOf): a working or waiting agent is judged on its
// record alone, so a busy run costs no git process. The branch's reading
// is reused while none of its commits moved (workMemo); HEAD and the
// worktree's status are read each time.
func (e *Engine) observe(rec *state.Record, into string, now time.Time) (run.Observation, error) {
	o := run.Observation{
		Now: now, Status: rec.Status, WaitingFor: rec.WaitingFor, Limit: rec.Limit, ExitCode: rec.ExitCode,
		Done: rec.Done, LastActivity: rec.StatusSince,
	}
	if o.Status != state.Idle && o.Status != state.Exited {
		return o, nil
	}
	w, err := e.works.JudgedWorkOf(rec, into)
	if err != nil {
		return o, err
	}
	o.OffBranch = w.Problem(rec.Path)
	o.Commits, o.Unchanged, o.Tree, o.Base = w.Commits, w.Unchanged, w.Tree, w.Base
	if o.Uncommitted, err = lifecycle.WorkFiles(rec); err != nil {
		return o, fmt.Errorf("uncommitted files: %w", err)
	}
	return o, nil
}

// apply records a verdict on the task it was about, if the task is still
// as it was judged, and returns the events worth a line in the log.
func apply(r *run.Run, jv judged, now time.Time) []run.Event {
	t, ok := r.Task(jv.id)
	if !ok || t.State != jv.was || t.Name != jv.name {
		return nil // changed under us (owt run skip, cancel, …)
	}
	if evs, settled := applyMail(r, t, jv, now); settled {
		return evs
	}
	v := jv.v
	ev := v.Evidence
	if run.OutOfTime(t) && v.Action != run.MarkDone {
		return nil // timed out or stalled: the user decides, unless the agent finished meanwhile
	}
	switch v.Action {
	case run.MarkDone:
		t.Evidence, t.Why, t.Owed = &ev, "", ""
		r.SetTask(t, run.Done, now)
		return []run.Event{{At: now, Event: "done", Task: t.ID, Detail: doneDetail(ev)}}
	case run.AskUser:
		if t.State == run.NeedsYou && t.Why == v.Why {
			return nil
		}
		t.Evidence, t.Why = &ev, v.Why
		r.SetTask(t, run.NeedsYou, now)
		return []run.Event{{At: now, Event: "needs_you", Task: t.ID, Detail: v.Why}}
	case run.MarkFailed:
		return r.FailAttempt(t, *v.Failure, &ev, jv.jitter, now)
	case run.RunChecks:
		return r.ApplyChecking(t, v, now)
	case run.SendMessage:
		owed := string(v.Action)
		if v.Message != nil {
			owed = v.Message.Kind
		}
		if t.Owed == owed && t.State == run.Running {
			return nil
		}
		t.Evidence, t.Owed, t.Why = &ev, owed, v.Why
		r.SetTask(t, run.Running, now)
		return []run.Event{{At: now, Event: "owed", Task: t.ID, Detail: owedDetail(owed, v.Why)}}
	case run.KeepWaiting:
		if t.State == run.NeedsYou {
			// The user answered: the agent works on.
			t.Why = ""
			r.SetTask(t, run.Running, now)
			return []run.Event{{At: now, Event: "running", Task: t.ID, Detail: v.Why}}
		}
	}
	return nil
}

func doneDetail(ev run.Evidence) string {
	parts := []string{ev.Signal, fmt.Sprintf("%d commit(s)", ev.Commits)}
	if ev.Checks != "" {
		parts = append(parts, "checks "+ev.Checks)
	}
	if !ev.Summary.Empty() {
		parts = append(parts, "summary: "+ev.Summary.Block())
	}
	return strings.Join(parts, "; ")
}

// owedDetail says that a message is owed that the outbox could not queue
// (it is tried again at the next judgement).
func owedDetail(kind, why string) string {
	return fmt.Sprintf("%s: owt owes the agent %s; not sent yet (the outbox could not queue it)", why, messageWhat(kind))
}

// startReady starts the tasks Ready picks, each in two steps: marked
// starting under the run's lock (so no slot is given twice, whoever else
// drives the run), then created outside it, and recorded running.
func (e *Engine) startReady(name string, now time.Time) error {
	pre, err := e.Store.Load(name)
	if err != nil || len(run.Ready(pre, now)) == 0 {
		return err // nothing to start: no lock taken (the locked pass below decides for real)
	}
	held := e.retriesHeld(pre, run.Ready(pre, now))
	limits := e.heldByLimits(pre, run.Ready(pre, now), now)
	var starting []attemptStart
	var r *run.Run
	err = e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		r = cur
		var evs []run.Event
		for _, id := range run.Ready(cur, now) {
			t, _ := cur.Task(id)
			if held[id] && t.State == run.Backoff {
				evs = append(evs, holdRetry(t, now)...)
				continue
			}
			if why, ok := limits[id]; ok {
				evs = append(evs, holdForLimit(t, why, now)...)
				continue
			}
			starting = append(starting, attemptStart{id: id, name: t.Name, failure: t.Failure, attempt: t.Attempt + 1})
			t.Attempt++
			t.StartedAt = now
			t.Memo, t.Clock, t.Failure, t.Evidence, t.Why, t.Owed = run.Memo{}, run.ActiveClock{}, nil, nil, "", ""
			cur.SetTask(t, run.Starting, now)
			evs = append(evs, run.Event{At: now, Event: "starting", Task: id, Detail: fmt.Sprintf("attempt %d", t.Attempt)})
		}
		return evs, nil
	})
	if err != nil || len(starting) == 0 {
		return err
	}
	var remote []attemptStart
	for _, a := range starting {
		if e.onHost(r, a.id) {
			remote = append(remote, a)
			continue
		}
		rec, host, err := e.launch(r, a)
		if err := e.recordStart(name, a.id, rec, host, err); err != nil {
			return err
		}
	}
	e.startRemote(r, name, remote) // off the tick: see engine_remote.go
	return nil
}

// recordStart records how the start of task id of run name went: running
// on rec's worktree (at a host, the zero placedAt for here), or the
// attempt failed with err.
func (e *Engine) recordStart(name, id string, rec *state.Record, at placedAt, err error) error {
	host := at.Host
	now := time.Now()
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		t, ok := cur.Task(id)
		if !ok {
			return nil, nil
		}
		if t.State != run.Starting {
			// Cancelled or skipped while it was made: its worktree and
			// agent exist, so the task keeps them (a retry uses them;
			// the agent is left alone, as skip and cancel promise).
			if err == nil && rec != nil {
				t.Name, t.Branch, t.Host, t.HostRepo = rec.Name, rec.Branch, host, at.Repo
				return []run.Event{{At: now, Event: "started", Task: id,
					Detail: fmt.Sprintf("%s on %s, after the task was %s: its agent is left alone", rec.Name, rec.Branch, t.State)}}, nil
			}
			return nil, nil
		}
		if evs, held := cur.NotStarted(t, err, now); held {
			return evs, nil
		}
		if err != nil {
			return cur.FailAttempt(t, run.Failure{Class: run.FailStart, Error: untrusted.From(err.Error())}, nil, e.jitter(), now), nil
		}
		t.Name, t.Branch, t.Host, t.HostRepo = rec.Name, rec.Branch, host, at.Repo
		cur.SetTask(t, run.Running, now)
		where := ""
		if host != "" {
			where = " on host " + host
		}
		return []run.Event{{At: now, Event: "started", Task: id,
			Detail: fmt.Sprintf("%s on %s from %s%s", rec.Name, rec.Branch, startedFrom(rec), where)}}, nil
	})
}

// create makes the task's worktree, session and agent through owt new's
// Create.
func (e *Engine) create(r *run.Run, id string, attempt int) (*state.Record, placedAt, error) {
	pt, ok := r.Plan.TaskByID(id)
	if !ok {
		return nil, placedAt{}, fmt.Errorf("run %s has no task %q", r.Name, id)
	}
	tool := r.Plan.ToolOf(pt)
	sp, err := e.startPoint(r, pt)
	if err != nil {
		return nil, placedAt{}, err
	}
	task := pt.Task + "\n\n" + run.DoneInstruction
	if sp.Brief != "" {
		task = pt.Task + "\n\n" + sp.Brief + "\n\n" + run.DoneInstruction
	}
	if host, labels := r.Plan.PlaceOf(pt); host != "" || len(labels) > 0 {
		if pt.Issue != 0 {
			return nil, placedAt{}, fmt.Errorf("a task with an issue cannot run on a host yet (owt new --issue --host is not supported)")
		}
		// On a host, the name RUN-ID may be taken by this task's agent
		// made there by a start whose answer was lost (adopted), or by
		// another agent: then it is the attempt's name, RUN-ID-aN.
		rs, err := e.createOnHost(r, pt, sp, r.Name+"-"+id, task, fmt.Sprintf("%s-%s-a%d", r.Name, id, max(attempt, 1)))
		return rs.rec, rs.at, err
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return nil, placedAt{}, err
	}
	rec, err := lifecycle.Of(w).Create(lifecycle.CreateOptions{
		Task:    task,
		Name:    r.Name + "-" + id,
		Base:    sp.Base,
		StartAt: sp.Commit,
		Tool:    tool,
		// A template shapes the prompt; an issue's text goes before the
		// task's (then only the run's brief and instruction).
		Template: pt.Template,
		Issue:    pt.Issue,
		InRun:    true,
	})
	return rec, placedAt{}, err
}

// startedFrom says where a task's branch started: the commit, which is a
// merge of its parents' work for a child in a run without into.
func startedFrom(rec *state.Record) string {
	if rec.BaseCommit != "" {
		return run.Short(rec.BaseCommit) + " (" + rec.Base + ")"
	}
	return rec.Base
}
