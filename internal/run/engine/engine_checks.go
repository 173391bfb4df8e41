package engine

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// CheckTimeout bounds one check command: a hung test suite fails its
// check instead of holding the task for ever.
const CheckTimeout = 15 * time.Minute

// jobs are work running in the background (a task's checks, a pull
// request being opened): one at a time per key.
type jobs struct {
	mu      sync.Mutex
	running map[string]bool
}

func (c *jobs) claim(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[key] {
		return false
	}
	if c.running == nil {
		c.running = map[string]bool{}
	}
	c.running[key] = true
	return true
}

// busy reports whether key's job runs now.
func (c *jobs) busy(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running[key]
}

func (c *jobs) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.running, key)
}

// act does what a verdict asks outside the run's lock: the checks start
// in the background, a message goes to the outbox. It returns what the
// outbox holds of the task's message.
func (e *Engine) act(r *run.Run, t *run.TaskRun, rec *state.Record, pt *run.Task, v run.Verdict, now time.Time) *mail {
	if v.Action == run.RunChecks {
		e.startChecks(r.Name, r.Repo, *t, rec.Path, r.Plan.ChecksOf(pt), r.Plan.ReviewOf(pt), v.Tree, t.Memo.Checks)
	}
	return e.mailOf(r, t, rec, v, now)
}

// startChecks runs the checks on tree in the worktree at dir, in the
// background, unless they run for this task already; the result goes
// into the task's memo under the run's lock, with the files the checks
// wrote there (the last run's still as it left them included). If the
// agent was active while they ran, nothing is credited to them: what
// changed may be its work.
//
// With review, the AI review (land.Review, by owt's [review] tool) of
// the worktree's HEAD against its base is one more check, made once the
// commands pass: a fail fails the checks with its findings (sent back to
// the agent as a failing check is), no verdict is the user's to decide.
func (e *Engine) startChecks(runName, repo string, t run.TaskRun, dir string, cmds [][]string, review bool, tree string, last *run.CheckResult) {
	key := runName + "\x00" + t.ID
	if !e.checks.claim(key) {
		return
	}
	go func() {
		defer e.checks.release(key)
		active := e.agentActivity(repo, t.Name)
		before, err := uncommittedMarks(dir)
		if err != nil {
			e.logf(repo, t.Name, "run %s: task %s: checks: %v", runName, t.ID, err)
			return
		}
		ran := land.RunChecks(dir, cmds, CheckTimeout)
		res := run.CheckResult{Passed: ran.Passed, Output: ran.Output, Tree: tree}
		if res.Passed && review {
			res = e.reviewCheck(repo, t.Name, dir, tree)
		}
		if res.Wrote, err = checksWrote(dir, before, last); err != nil {
			e.logf(repo, t.Name, "run %s: task %s: checks: %v", runName, t.ID, err)
			return
		}
		if active == "" || e.agentActivity(repo, t.Name) != active {
			res.Wrote = nil // the agent may have written them: its work, not output
		}
		if err := e.recordChecks(runName, t, dir, res); err != nil {
			e.logf(repo, t.Name, "run %s: task %s: checks: %v", runName, t.ID, err)
		}
	}()
}

// recordChecks keeps res in the task's memo if the task is still the
// attempt the checks ran for and its worktree still holds that tree.
func (e *Engine) recordChecks(runName string, was run.TaskRun, dir string, res run.CheckResult) error {
	if head, err := (git.Repo{Root: dir}).TreeOf("HEAD"); err != nil || head != res.Tree {
		return nil // the agent committed since: that tree gets its own run
	}
	return e.keepChecks(runName, was, res)
}

// keepChecks keeps res in the task's memo if the task is still the
// attempt the checks ran for.
func (e *Engine) keepChecks(runName string, was run.TaskRun, res run.CheckResult) error {
	return e.Store.Update(runName, func(r *run.Run) ([]run.Event, error) {
		t, ok := r.Task(was.ID)
		if !ok || t.Name != was.Name || t.Attempt != was.Attempt || (t.State != run.Running && t.State != run.NeedsYou) {
			return nil, nil
		}
		res.At = time.Now()
		t.Memo.Checks = &res
		if t.Owed == string(run.RunChecks) {
			t.Owed = ""
		}
		r.UpdatedAt = res.At
		detail := "passed on " + run.Short(res.Tree)
		if !res.Passed {
			detail = "failed on " + run.Short(res.Tree) + ": " + run.FirstLine(res.Output)
		}
		return []run.Event{{At: res.At, Event: "checks", Task: t.ID, Detail: detail}}, nil
	})
}

// agentActivity marks what the agent of worktree name last did (its
// status and the event behind it, its pane's last output): two equal
// marks mean it did nothing in between. "" when it cannot be read.
func (e *Engine) agentActivity(repo, name string) string {
	f, err := state.ForRepo(repo).Peek()
	if err != nil || f.Records[name] == nil {
		return ""
	}
	rec := f.Records[name]
	return fmt.Sprintf("%s|%s|%d|%d|%d", rec.Status, rec.Source, rec.StatusSince.UnixNano(),
		rec.EventAt.UnixNano(), e.paneActivity(rec.Pane).UnixNano())
}

// uncommittedMarks is each uncommitted file in dir with its mark.
func uncommittedMarks(dir string) (map[string]string, error) {
	files, err := git.DirtyFiles(dir)
	if err != nil {
		return nil, err
	}
	marks := make(map[string]string, len(files))
	for _, f := range files {
		marks[f] = run.CheckOutputMark(filepath.Join(dir, f))
	}
	return marks, nil
}

// checksWrote are the uncommitted files in dir the checks changed since
// before, and those the last run wrote that are still as it left them.
func checksWrote(dir string, before map[string]string, last *run.CheckResult) (map[string]string, error) {
	after, err := uncommittedMarks(dir)
	if err != nil {
		return nil, err
	}
	wrote := map[string]string{}
	for f, mark := range after {
		was, dirty := before[f]
		if !dirty || was != mark || (last != nil && last.Wrote[f] == mark) {
			wrote[f] = mark
		}
	}
	return wrote, nil
}
