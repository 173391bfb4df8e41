package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Work on hosts never runs in the tick. The monitor's tick also redraws
// the local status bar, and one ssh call to a slow or vanished host can
// take minutes (a connect timeout, a push): so every ssh step of a run
// task — its start, the reading of its evidence, bringing its branch
// home, a message to its agent, its teardown — runs in a goroutine of its
// own, one at a time per task and step (jobs), and leaves its result
// here for a later tick to record. The tick itself reads files only (the
// host's status from the monitor's stream, these results) and does the
// local git work of a landing, as for a local task.
//
// A result is recorded only if the task is still as it was when the step
// began (the run's lock, the state checks of each Update): a task skipped
// or cancelled meanwhile is left alone.

// remoteStepTimeout bounds one ssh step of a remote task other than its
// start (remoteStartTimeout): reading its evidence, fetching its branch,
// sending a message, deleting it.
const remoteStepTimeout = 2 * time.Minute

// evidenceEvery is how often the evidence of a remote agent that stopped
// working is read again while its status holds (its status changing
// reads it at once).
const evidenceEvery = 10 * time.Second

// needsYouEvidenceEvery is evidenceEvery for a task that needs the user.
const needsYouEvidenceEvery = time.Minute

// remoteResults are the finished ssh steps, by run/task.
type remoteResults struct {
	mu       sync.Mutex
	evidence map[string]reading
	fetched  map[string]fetched
	// sent are the messages delivered to remote agents, by run/task: a
	// tick that read the task before its memo was written sends none
	// again.
	sent map[string]string
	// starts serializes the starts on each host, by name.
	starts map[string]*sync.Mutex
}

// hostLock is the lock of starts on host name.
func (rr *remoteResults) hostLock(name string) *sync.Mutex {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.starts == nil {
		rr.starts = map[string]*sync.Mutex{}
	}
	if rr.starts[name] == nil {
		rr.starts[name] = &sync.Mutex{}
	}
	return rr.starts[name]
}

// firstSend reports whether message id is not yet sent for key, and
// notes it sent.
func (rr *remoteResults) firstSend(key, id string) bool {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.sent == nil {
		rr.sent = map[string]string{}
	}
	if rr.sent[key] == id {
		return false
	}
	rr.sent[key] = id
	return true
}

func (rr *remoteResults) unsent(key string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	delete(rr.sent, key)
}

// reading is one read of a remote agent's evidence.
type reading struct {
	ev  hosts.Evidence
	at  time.Time
	err error
}

// fetched is a remote task's branch brought home (or why not).
type fetched struct {
	// branch is owt's own branch here holding it, hostBranch its name there.
	branch, hostBranch, commit string
	err                        error
	at                         time.Time
}

// fetchedFresh is how long a fetch result stands for a landing: an older
// one (its task was not landable meanwhile) is fetched again.
const fetchedFresh = time.Minute

func (rr *remoteResults) reading(key string) (reading, bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rd, ok := rr.evidence[key]
	return rd, ok
}

func (rr *remoteResults) putReading(key string, rd reading) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.evidence == nil {
		rr.evidence = map[string]reading{}
	}
	rr.evidence[key] = rd
}

func (rr *remoteResults) dropReading(key string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	delete(rr.evidence, key)
}

// takeFetched is the task's fetch result, once: a later landing fetches
// again.
func (rr *remoteResults) takeFetched(key string) (fetched, bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	f, ok := rr.fetched[key]
	delete(rr.fetched, key)
	return f, ok
}

func (rr *remoteResults) putFetched(key string, f fetched) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.fetched == nil {
		rr.fetched = map[string]fetched{}
	}
	rr.fetched[key] = f
}

// onHost reports whether task id of r is placed on a host (host or
// labels in its plan).
func (e *Engine) onHost(r *run.Run, id string) bool {
	if t, ok := r.Task(id); ok && t.Host != "" {
		return true
	}
	pt, ok := r.Plan.TaskByID(id)
	if !ok {
		return false
	}
	host, labels := r.Plan.PlaceOf(pt)
	return host != "" || len(labels) > 0
}

// startRemote starts attempts as of tasks of run name on hosts in the
// background, one after the other in the order given (the plan's: the
// first gets the room a host has); each task stays starting until it is
// recorded.
func (e *Engine) startRemote(r *run.Run, name string, as []attemptStart) {
	var claimed []attemptStart
	for _, a := range as {
		if e.remoteJobs.claim("start " + name + "/" + a.id) {
			claimed = append(claimed, a)
		}
	}
	if len(claimed) == 0 {
		return
	}
	go func() {
		for _, a := range claimed {
			rec, host, err := e.launch(r, a)
			if err := e.recordStart(name, a.id, rec, host, err); err != nil {
				e.logf(r.Repo, "", "run %s: task %s: record its start: %v", name, a.id, err)
			}
			e.remoteJobs.release("start " + name + "/" + a.id)
		}
	}()
}

// starting reports whether task id of run name is being started on a
// host by this engine now.
func (e *Engine) starting(name, id string) bool {
	return e.remoteJobs.busy("start " + name + "/" + id)
}

// openHost is the configured host called name and its clone of r's
// repository.
func openHost(r *run.Run, name string) (*hosts.Host, git.Repo, string, error) {
	cfg, err := config.Load(r.Repo)
	if err != nil {
		return nil, git.Repo{}, "", fmt.Errorf("config: %w", err)
	}
	h, err := hosts.Open(cfg, name)
	if err != nil {
		return nil, git.Repo{}, "", err
	}
	repo, err := git.FindRepo(r.Repo)
	if err != nil {
		return nil, git.Repo{}, "", fmt.Errorf("repository %s: %w", r.Repo, err)
	}
	clone, ok := h.Clone(repo.Root)
	if !ok {
		return nil, git.Repo{}, "", fmt.Errorf("%w: %s", hosts.ErrNoClone, h.Name)
	}
	return h, repo, clone, nil
}

// readEvidence reads the evidence of task t's agent on its host in the
// background.
func (e *Engine) readEvidence(r *run.Run, t *run.TaskRun) {
	key := r.Name + "/" + t.ID
	if !e.remoteJobs.claim("evidence " + key) {
		return
	}
	host, spec := t.Host, evidenceSpec(t)
	go func() {
		defer e.remoteJobs.release("evidence " + key)
		ctx, cancel := context.WithTimeout(context.Background(), remoteStepTimeout)
		defer cancel()
		h, _, clone, err := openHost(r, host)
		var ev hosts.Evidence
		if err == nil {
			ev, err = h.Evidence(ctx, clone, spec)
		}
		e.remote.putReading(key, reading{ev: ev, at: time.Now(), err: err})
	}()
}

// evidenceSpec asks for the evidence of task t's agent, the files its
// last checks wrote told apart from its work.
func evidenceSpec(t *run.TaskRun) hosts.EvidenceSpec {
	spec := hosts.EvidenceSpec{Name: t.Name}
	if t.Memo.Checks != nil {
		spec.Wrote = t.Memo.Checks.Wrote
	}
	return spec
}

// observation is the judge's view of a remote agent's evidence at now.
func observation(ev hosts.Evidence, now time.Time) run.Observation {
	return run.Observation{
		Now: now, Status: ev.Status, WaitingFor: ev.WaitingFor, Limit: ev.Limit, ExitCode: ev.ExitCode, Done: ev.Done,
		LastActivity: ev.Since, Commits: ev.Commits, Unchanged: ev.Unchanged, Base: ev.Base, OffBranch: ev.OffBranch,
		Uncommitted: ev.Uncommitted, Tree: ev.Tree,
	}
}

// sendRemote delivers the message a verdict owes task t's agent on its
// host (owt send there, the text on stdin) in the background, and notes
// it delivered on the task: the judge then waits for the agent to act
// on it, as for a local task.
func (e *Engine) sendRemote(r *run.Run, t *run.TaskRun, msg run.Message) {
	key := "send " + r.Name + "/" + t.ID
	if !e.remoteJobs.claim(key) {
		return
	}
	host, name, id, attempt := t.Host, t.Name, t.ID, t.Attempt
	sendID := fmt.Sprintf("%s %d %s %s", name, attempt, msg.Kind, msg.Tree)
	if !e.remote.firstSend(r.Name+"/"+id, sendID) {
		e.remoteJobs.release(key)
		return
	}
	go func() {
		defer e.remoteJobs.release(key)
		ctx, cancel := context.WithTimeout(context.Background(), remoteStepTimeout)
		defer cancel()
		h, _, clone, err := openHost(r, host)
		if err == nil {
			_, err = h.Send(ctx, clone, hosts.SendSpec{Name: name, Text: msg.Text})
		}
		if err != nil {
			e.remote.unsent(r.Name + "/" + id)
			e.logf(r.Repo, name, "run %s: task %s: tell %s@%s: %v", r.Name, id, name, host, err)
			return // owed still: the next judgement tries again
		}
		at := time.Now()
		err = e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
			ct, ok := cur.Task(id)
			if !ok || ct.Name != name || ct.Attempt != attempt || !ct.State.Occupies() {
				return nil, nil
			}
			ct.Memo.Delivered(msg, at)
			ct.Owed, cur.UpdatedAt = "", at
			return []run.Event{{At: at, Event: "sent", Task: id, Detail: fmt.Sprintf("%s to %s@%s", msg.Kind, name, host)}}, nil
		})
		if err != nil {
			e.logf(r.Repo, name, "run %s: task %s: %v", r.Name, id, err)
		}
	}()
}

// landRemote lands done task t, whose agent is on a host: its branch is
// brought home in the background (checked first there: not working, no
// uncommitted work, the commits judged); then, at a later tick, it is
// merged into into here exactly as a local task's branch is, and only
// then is its agent deleted on its host (in the background).
func (e *Engine) landRemote(r *run.Run, t *run.TaskRun, now time.Time) error {
	key := r.Name + "/" + t.ID
	if e.remoteJobs.busy("fetch " + key) {
		return nil
	}
	f, ok := e.remote.takeFetched(key)
	if !ok || now.Sub(f.at) > fetchedFresh {
		if hs, known := hostStatuses()[t.Host]; known && !hs.Reachable {
			return nil // out of reach: it lands once its host is back
		}
		e.fetchRemote(r, t)
		return nil
	}
	if errors.Is(f.err, ssh.ErrUnreachable) {
		return nil // tried again at the next tick
	}
	res, err := land.Result{}, f.err
	if err == nil {
		res, err = e.mergeFetched(r, t, f)
	}
	if err := e.recordLanding(r.Name, t, res, err, resolving{}); err != nil {
		return err
	}
	if err == nil {
		e.deleteRemote(r, t, f.commit)
	}
	return nil
}

// fetchRemote brings task t's branch home from its host in the
// background, after the host's own reading of it says it may land.
func (e *Engine) fetchRemote(r *run.Run, t *run.TaskRun) {
	key := r.Name + "/" + t.ID
	if !e.remoteJobs.claim("fetch " + key) {
		return
	}
	host, spec := t.Host, evidenceSpec(t)
	allowEmpty := false
	if pt, ok := r.Plan.TaskByID(t.ID); ok {
		allowEmpty = pt.AllowEmpty
	}
	go func() {
		defer e.remoteJobs.release("fetch " + key)
		ctx, cancel := context.WithTimeout(context.Background(), remoteStepTimeout)
		defer cancel()
		f := fetchHome(ctx, r, host, spec, allowEmpty)
		f.at = time.Now()
		e.remote.putFetched(key, f)
	}()
}

// fetchHome is the remote half of a landing: the agent's evidence read
// again there (a done task's agent may have gone on since), then its
// branch fetched here, fast-forward only; the commit fetched must be the
// one read.
func fetchHome(ctx context.Context, r *run.Run, host string, spec hosts.EvidenceSpec, allowEmpty bool) fetched {
	h, repo, clone, err := openHost(r, host)
	if err != nil {
		return fetched{err: err}
	}
	name := spec.Name
	ev, err := h.Evidence(ctx, clone, spec)
	if err != nil {
		return fetched{err: err}
	}
	at := name + "@" + host
	switch {
	case ev.Status == state.Working || ev.Status == state.Starting || ev.Status.NeedsYou():
		return fetched{err: fmt.Errorf("%s is %s again: it lands once its turn is over and it is judged done again", at, ev.Status)}
	case ev.OffBranch != "":
		return fetched{err: fmt.Errorf("%s: %s", at, ev.OffBranch)}
	case len(ev.Uncommitted) > 0:
		return fetched{err: fmt.Errorf("%s has %w in %d file(s) on %s: they would not come home; have it commit them (owt send %s …)",
			at, land.ErrUncommitted, len(ev.Uncommitted), host, at)}
	case (ev.Commits == 0 || ev.Unchanged) && !allowEmpty:
		return fetched{err: fmt.Errorf("its branch %s on %s has no change against the task's start: nothing to land", ev.Branch, host)}
	}
	// Into owt's own branch here (owt/remote/HOST/BRANCH): never a local
	// agent's or the user's branch of the same name.
	f, err := h.FetchForLanding(ctx, repo, name)
	if err != nil {
		return fetched{err: fmt.Errorf("bring %s home from %s: %w", ev.Branch, host, err)}
	}
	if f.Commit != ev.Tip {
		return fetched{err: fmt.Errorf("%s moved on %s while it was fetched (%.12s, read %.12s): it is tried again", f.Branch, host, f.Commit, ev.Tip)}
	}
	return fetched{branch: f.Local, hostBranch: f.Branch, commit: f.Commit}
}

// mergeFetched merges the branch of remote task t, brought home as f,
// into the run's into: owt merge's path with the same safety rules as a
// local task (a checkout on into is moved only when it is clean).
func (e *Engine) mergeFetched(r *run.Run, t *run.TaskRun, f fetched) (land.Result, error) {
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return land.Result{}, err
	}
	if err := ensureInto(w.Repo, r); err != nil {
		return land.Result{}, err
	}
	// owt's own branch the work came home in goes once it is merged (or
	// not: the next try fetches it again).
	defer func() {
		if strings.HasPrefix(f.branch, git.OwnFetchPrefix) && w.Repo.BranchExists(f.branch) {
			_ = w.Repo.DeleteBranch(f.branch, true)
		}
	}()
	// The agent as the merge sees it: its branch here, no worktree here
	// (its worktree is on its host, checked there: fetchHome).
	rec := &state.Record{Name: t.Name, Repo: w.Repo.Root, Branch: f.branch, Base: r.Base}
	tip, err := w.Repo.ResolveCommit(git.BranchRef(f.branch))
	if err != nil || tip != f.commit {
		return land.Result{}, fmt.Errorf("%s here is not the commit fetched from %s (%.12s): it is tried again", f.branch, t.Host, f.commit)
	}
	if ahead, _, err := w.Repo.AheadBehind(git.BranchRef(r.Into), git.BranchRef(f.branch)); err != nil {
		return land.Result{}, err
	} else if ahead == 0 {
		res, err := alreadyThere(w.Repo, r.Into, rec)
		return f.named(res), err
	}
	ctx := &land.Context{Git: w.Repo, Records: w.Records, WorkFiles: lifecycle.WorkFiles, EditedCopies: lifecycle.EditedCopies}
	res, err := ctx.Merge(rec, land.Options{Into: r.Into, BranchName: f.hostBranch})
	return f.named(res), err
}

// named is res naming the branch as it is on the host.
func (f fetched) named(res land.Result) land.Result {
	if f.hostBranch != "" {
		res.Branch = f.hostBranch
	}
	return res
}

// deleteTries is how often the teardown of a landed remote task's agent
// is tried (a host may drop out just after its work came home).
const deleteTries = 5

// deleteRemote deletes the agent of landed task t on its host, in the
// background: its work is in into here. The run's log says whether it
// was; an agent that could not be deleted is left there, said so.
func (e *Engine) deleteRemote(r *run.Run, t *run.TaskRun, tip string) {
	key := "delete " + r.Name + "/" + t.ID
	if !e.remoteJobs.claim(key) {
		return
	}
	host, name, id := t.Host, t.Name, t.ID
	go func() {
		defer e.remoteJobs.release(key)
		err := deleteOnHost(r, host, name, tip)
		now := time.Now()
		ev := run.Event{At: now, Event: "teardown", Task: id, Detail: fmt.Sprintf("%s deleted on host %s (its work landed here)", name, host)}
		if err != nil {
			ev.Detail = fmt.Sprintf("%s@%s was not deleted there, its work landed here: %v; delete it with owt delete %s@%s", name, host, err, name, host)
		}
		if err := e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) { cur.UpdatedAt = now; return []run.Event{ev}, nil }); err != nil {
			e.logf(r.Repo, name, "run %s: %s", r.Name, ev.Detail)
		}
	}()
}

// deleteOnHost deletes the landed agent called name, whose branch landed
// at tip, on host: never more than that (hosts.DeleteLanded).
func deleteOnHost(r *run.Run, host, name, tip string) error {
	var err error
	for try := 0; try < deleteTries; try++ {
		if try > 0 {
			time.Sleep(time.Duration(try) * 5 * time.Second)
		}
		var h *hosts.Host
		var clone string
		if h, _, clone, err = openHost(r, host); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), remoteStepTimeout)
		err = h.DeleteLanded(ctx, clone, name, tip, io.Discard)
		cancel()
		var ee *ssh.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%s", ee.Stderr) // owt there refused: trying again changes nothing
		}
		if err == nil {
			return nil
		}
	}
	return err
}

// startRemoteChecks runs the checks of task t on tree in its agent's
// worktree on its host, in the background (under the same job key as a
// local task's checks: the task is not judged while they run), and keeps
// how they went in its memo, as recordChecks does for a local task.
func (e *Engine) startRemoteChecks(r *run.Run, t run.TaskRun, cmds [][]string, tree string) {
	key := r.Name + "\x00" + t.ID
	if !e.checks.claim(key) {
		return
	}
	spec := hosts.ChecksSpec{Name: t.Name, Tree: tree, Commands: cmds}
	if t.Memo.Checks != nil {
		spec.LastWrote = t.Memo.Checks.Wrote
	}
	go func() {
		defer e.checks.release(key)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(cmds))*CheckTimeout+remoteStepTimeout)
		defer cancel()
		h, _, clone, err := openHost(r, t.Host)
		var ran hosts.ChecksRun
		if err == nil {
			ran, err = h.Checks(ctx, clone, spec)
		}
		if err != nil {
			// Out of reach, or HEAD moved there: judged again, they run
			// again on what is there then.
			e.logf(r.Repo, t.Name, "run %s: task %s: checks on %s: %v", r.Name, t.ID, t.Host, err)
			time.Sleep(evidenceEvery) // the task waits unjudged a while: no ssh call a tick
			return
		}
		res := run.CheckResult{Passed: ran.Passed, Output: ran.Output, Tree: tree, Wrote: ran.Wrote}
		if err := e.keepChecks(r.Name, t, res); err != nil {
			e.logf(r.Repo, t.Name, "run %s: task %s: checks: %v", r.Name, t.ID, err)
		}
	}()
}
