package react

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// logTail is how many lines of a failed CI log go to the agent.
const logTail = 40

// pollDue reports whether rec's pull request is to be polled now: it is
// open, its interval (or backoff) has passed, and something can change:
// checks pending, a review awaited, or a head not polled yet. It costs no
// process before the interval has passed.
func (x *Reactor) pollDue(rec *state.Record, cfg config.Config, now time.Time) bool {
	pr := rec.PR
	if pr == nil || pr.State != "OPEN" {
		return false
	}
	k, every := keyOf(rec), cfg.PR.PollInterval.Duration
	x.mu.Lock()
	if now.Before(x.next[k]) || (x.ghOff && now.Before(x.ghRetry)) {
		x.mu.Unlock()
		return false
	}
	if x.next == nil {
		x.next, x.polled = map[agentKey]time.Time{}, map[agentKey]time.Time{}
	}
	x.next[k] = now.Add(every)
	// GitHub decides reviews only where they are required: "" awaits none.
	due := pr.Stale != "" || pr.Checks == "" || pr.Checks == "pending" || pr.Review == "REVIEW_REQUIRED" ||
		x.logOwed[k].seen != "" || now.Sub(x.polled[k]) >= settledEvery*every
	x.mu.Unlock()
	if !due {
		// Settled: only a new head of its own is news (one rev-parse an
		// interval, outside the lock).
		head, err := git.Repo{Root: rec.Repo}.ResolveCommit(git.BranchRef(rec.Branch))
		due = err == nil && head != pr.Head
	}
	if due {
		x.mu.Lock()
		x.polled[k] = now
		if x.ghOff {
			// This poll is gh's one try until the next backoff.
			x.ghRetry = now.Add(x.ghWait)
		}
		x.mu.Unlock()
	}
	return due
}

// settledEvery is how many intervals a settled pull request (checks done,
// review decided, no new head) waits between polls: it is still looked at
// now and then, to see it merged or closed, or its CI run again.
const settledEvery = 10

// logTries is how many polls a failing check whose log cannot be read yet
// (its run still in progress) waits for it before it is sent without.
const logTries = 3

// poll reads the pull request (one gh call) and runs the CI and review
// reactions on it; a failing check or a new review costs one more call.
func (x *Reactor) poll(rec *state.Record, cfg config.Config) {
	// By number: gh reads a branch that looks like a number ("7") as one.
	pr, err := x.Forge.View(rec.Path, rec.PR.Number)
	if err != nil {
		x.pollFailed(rec, cfg, err)
		return
	}
	if pr.Number != rec.PR.Number {
		x.pollFailed(rec, cfg, fmt.Errorf("gh pr view %d answered with pull request #%d", rec.PR.Number, pr.Number))
		return
	}
	x.mu.Lock()
	delete(x.backoff, keyOf(rec))
	back := x.ghOff
	x.ghOff, x.ghWait = false, 0
	x.mu.Unlock()
	if back {
		x.logf(nil, "gh answers again: the %s and %s reactions are back on", config.CIFailed, config.ChangesRequested)
	}
	if err := x.notePR(rec, pr); err != nil {
		x.logf(rec, "pr %s: %v", rec.Name, err)
	}
	if err := x.ciFailed(rec, cfg, pr); err != nil {
		x.logf(rec, "reaction %s %s: %v", config.CIFailed, rec.Name, err)
	}
	if err := x.changesRequested(rec, cfg, pr); err != nil {
		x.logf(rec, "reaction %s %s: %v", config.ChangesRequested, rec.Name, err)
	}
}

// pollFailed backs off and marks the pull request's state stale, saying
// why (the latest failure). gh not logged in holds every poll: one tries
// again after a wait that doubles from the poll interval up to
// maxBackoff, warned once; any other answer of gh ends that.
func (x *Reactor) pollFailed(rec *state.Record, cfg config.Config, err error) {
	defer func() {
		if merr := x.markStale(rec, staleWhy(err)); merr != nil {
			x.logf(rec, "pr %s: %v", rec.Name, merr)
		}
	}()
	x.mu.Lock()
	defer x.mu.Unlock()
	if errors.Is(err, forge.ErrAuth) {
		x.ghWait = min(max(2*x.ghWait, cfg.PR.PollInterval.Duration), maxBackoff)
		x.ghRetry = time.Now().Add(x.ghWait)
		if !x.ghOff {
			x.ghOff = true
			x.logf(nil, "warning: %v: the %s and %s reactions wait for it; tried again in %s, then less and less often (up to every %s)",
				err, config.CIFailed, config.ChangesRequested, x.ghWait, maxBackoff)
		}
		return
	}
	// gh answered, with another failure: it is logged in again, and the
	// reason the PR state is stale is this failure, not the login.
	if x.ghOff {
		x.ghOff, x.ghWait = false, 0
		x.logf(nil, "gh is logged in again (it answers, though with a failure): the %s and %s reactions are back on", config.CIFailed, config.ChangesRequested)
	}
	if x.backoff == nil {
		x.backoff = map[agentKey]time.Duration{}
	}
	if x.next == nil {
		x.next = map[agentKey]time.Time{}
	}
	k := keyOf(rec)
	wait := min(max(2*x.backoff[k], cfg.PR.PollInterval.Duration), maxBackoff)
	x.backoff[k] = wait
	x.next[k] = time.Now().Add(wait)
	x.logf(rec, "pr %s: %v (next poll in %s)", rec.Name, err, wait)
}

// staleWhy is why a failed poll leaves the recorded PR state stale, in
// one short line.
func staleWhy(err error) string {
	if errors.Is(err, forge.ErrAuth) {
		return forge.ErrAuth.Error()
	}
	return untrusted.ShortLine(err.Error(), staleWidth)
}

// staleWidth bounds the reason owt list shows for a stale PR state.
const staleWidth = 120

// staleBecause is why rec's recorded PR state is stale and not marked so
// yet: gh not logged in holds every open pull request's polls.
func (x *Reactor) staleBecause(rec *state.Record) string {
	pr := rec.PR
	if pr == nil || pr.State != "OPEN" {
		return ""
	}
	x.mu.Lock()
	off := x.ghOff
	x.mu.Unlock()
	if why := forge.ErrAuth.Error(); off && pr.Stale != why {
		return why
	}
	return ""
}

// markStale notes on the record why its PR state is stale (owt list, the
// control plane and owt doctor say it).
func (x *Reactor) markStale(rec *state.Record, why string) error {
	return state.ForRepo(rec.Repo).Update(func(f *state.File) error {
		cur := f.Records[rec.Name]
		if cur == nil || cur.PR == nil || rec.PR == nil || cur.PR.Number != rec.PR.Number || cur.PR.Stale == why {
			return state.ErrNoChange
		}
		cur.PR.Stale = why
		return nil
	})
}

// notePR keeps what the poll saw on the record (owt list, the picker and
// the control plane show it).
func (x *Reactor) notePR(rec *state.Record, pr forge.PR) error {
	return state.ForRepo(rec.Repo).Update(func(f *state.File) error {
		cur := f.Records[rec.Name]
		if cur == nil || cur.PR == nil || cur.PR.Number != pr.Number {
			return state.ErrNoChange
		}
		// gh's words are kept as text, never as a terminal's controls.
		seen := state.PR{Number: pr.Number, URL: untrusted.CleanLine(pr.URL), State: untrusted.CleanLine(pr.State), Draft: pr.IsDraft,
			Checks: pr.CheckSummary(), Review: untrusted.CleanLine(pr.ReviewDecision), Head: untrusted.CleanLine(pr.HeadRefOid)}
		if *cur.PR == seen {
			return state.ErrNoChange // a write would make every reader reload for nothing
		}
		*cur.PR = seen
		if pr.State == "MERGED" || pr.State == "CLOSED" {
			// Its CI and reviews are over: what they escalated is moot.
			for _, name := range []string{config.CIFailed, config.ChangesRequested} {
				if st := cur.Reactions[name]; st != nil && st.NeedsYou != "" {
					// Pending stays: a message still in the outbox is
					// settled as ever.
					cur.Reactions[name] = &state.Reaction{Pending: st.Pending, At: time.Now()}
				}
			}
		}
		return nil
	})
}

// ciFailed sends the failing checks of the PR's head with their failed
// logs' tails; all passing is a pass.
func (x *Reactor) ciFailed(rec *state.Record, cfg config.Config, pr forge.PR) error {
	rc := cfg.Reactions[config.CIFailed]
	if rc.Action == "off" {
		return nil
	}
	var failing []forge.Check
	for _, c := range pr.Checks() {
		if c.Bucket == "fail" {
			failing = append(failing, c)
		}
	}
	if len(failing) == 0 {
		x.logsSettled(rec)
		if pr.CheckSummary() == "pass" {
			return x.pass(rec, config.CIFailed, pr.HeadRefOid)
		}
		return nil // pending: wait
	}
	sort.Slice(failing, func(i, j int) bool { return failing[i].Name.Line() < failing[j].Name.Line() })
	names := make([]string, len(failing))
	for i, c := range failing {
		names[i] = c.Name.Line()
	}
	seen := pr.HeadRefOid + " " + strings.Join(names, ",")
	if memory(rec, config.CIFailed).Seen == seen {
		return nil // these failures of this head were judged: no more calls
	}
	report, logs, unread := ciReport(failing, pr.URL, func(c forge.Check) (string, error) {
		return x.Forge.FailedLog(rec.Path, c.Link)
	})
	if unread != nil && x.waitForLogs(rec, seen) {
		x.logf(rec, "reaction %s %s: %v; tried again at the next poll", config.CIFailed, rec.Name, unread)
		return nil
	}
	x.logsSettled(rec)
	return x.fail(rec, failure{
		reaction: config.CIFailed, seen: seen,
		sig:  "ci " + digest(append([]string{pr.HeadRefOid, strings.Join(names, ",")}, logs...)...),
		what: untrusted.Some(names, 3) + " failed on " + short(pr.HeadRefOid),
		data: MessageData{Failure: report, PR: pr.Number},
	}, rc)
}

// changesRequested sends the reviews that request changes and their
// comments (path:line, author, body); an approval is a pass.
func (x *Reactor) changesRequested(rec *state.Record, cfg config.Config, pr forge.PR) error {
	rc := cfg.Reactions[config.ChangesRequested]
	if rc.Action == "off" {
		return nil
	}
	if pr.ReviewDecision == "APPROVED" {
		return x.pass(rec, config.ChangesRequested, "approved "+pr.HeadRefOid)
	}
	if pr.ReviewDecision != "CHANGES_REQUESTED" {
		return nil
	}
	var reviews []forge.Review
	var ids []string
	authors := map[string]bool{}
	for _, r := range pr.LatestReviews {
		if r.State == "CHANGES_REQUESTED" {
			reviews = append(reviews, r)
			ids = append(ids, r.ID)
			authors[r.Author.Login] = true
		}
	}
	seen := "reviews " + strings.Join(ids, ",")
	if memory(rec, config.ChangesRequested).Seen == seen {
		return nil
	}
	comments, err := x.Forge.ReviewComments(rec.Path, pr.Number)
	if err != nil {
		return err
	}
	// Bounded like a CI failure: a reviewer's paste must not become a
	// prompt of megabytes.
	var entries []string
	for _, r := range reviews {
		line := fmt.Sprintf("@%s requested changes", r.Author.Login)
		if body := strings.TrimSpace(r.Body.Typed()); body != "" {
			line += ": " + body
		}
		entries = append(entries, line+"\n")
	}
	n := 0
	for _, c := range comments {
		if c.ReplyTo != 0 || !authors[c.User.Login] {
			continue
		}
		n++
		entries = append(entries, fmt.Sprintf("- %s @%s: %s\n", c.At(), c.User.Login, strings.TrimSpace(c.Body.Typed())))
	}
	return x.fail(rec, failure{
		reaction: config.ChangesRequested, seen: seen, sig: seen,
		what: fmt.Sprintf("changes requested with %d comment(s)", n),
		data: MessageData{Failure: boundEntries(entries, messageMax, pr.URL), PR: pr.Number},
	}, rc)
}

// Bounds of a ci_failed message: the failing checks named (then how many
// more), the logs read (one gh call each, and only while the message has
// logRoom left for one: a log that cannot fit is not asked for).
const (
	checksNamed = 20
	logsRead    = 3
	logRoom     = 1 << 10
)

// ciReport is the failure text of a ci_failed message: every failing
// check named first (checksNamed of them, then how many more), then the
// tails of the first ones' failed logs while the message has room, within
// messageMax. readLog reads one log; logs are those read, and unread the
// first error reading one (its place says it could not be read).
func ciReport(failing []forge.Check, url string, readLog func(forge.Check) (string, error)) (text string, logs []string, unread error) {
	var head strings.Builder
	for _, c := range failing[:min(len(failing), checksNamed)] {
		fmt.Fprintf(&head, "✗ %s", c.Name)
		if !c.Workflow.Empty() {
			fmt.Fprintf(&head, " (%s)", c.Workflow)
		}
		if c.Link != "" {
			head.WriteString(" " + c.Link)
		}
		head.WriteString("\n")
	}
	if more := len(failing) - checksNamed; more > 0 {
		fmt.Fprintf(&head, "… and %d more failing checks: %s\n", more, url)
	}
	entries := []string{head.String()}
	room := messageMax - head.Len()
	for _, c := range failing {
		if len(logs) == logsRead || room < logRoom {
			break
		}
		log, err := readLog(c)
		if err != nil {
			log = "(its log could not be read: " + err.Error() + ")"
			if unread == nil {
				unread = err
			}
		}
		logs = append(logs, log)
		tail := land.Tail([]byte(log), logTail)
		if tail == "" {
			continue // not an Actions run: no log to show
		}
		block := fmt.Sprintf("\nThe failed log of %s (its last %d lines):\n%s\n", c.Name, logTail, tail)
		entries = append(entries, block)
		room -= len(block)
	}
	if left := len(failing) - len(logs); left > 0 && len(logs) > 0 {
		entries = append(entries, fmt.Sprintf("\n(the logs of the other %d failing checks: %s)\n", left, url))
	}
	return boundEntries(entries, messageMax, url), logs, unread
}

// logWait is a failure held for its log: what was seen, and the polls
// that found the log missing.
type logWait struct {
	seen  string
	tried int
}

// waitForLogs reports whether the failures seen are held for a later poll
// because a log could not be read (a workflow run still in progress has
// none yet): at most logTries polls, then they go without it, as the
// message then says.
func (x *Reactor) waitForLogs(rec *state.Record, seen string) bool {
	k := keyOf(rec)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.logOwed == nil {
		x.logOwed = map[agentKey]logWait{}
	}
	w := x.logOwed[k]
	if w.seen != seen {
		w = logWait{seen: seen}
	}
	w.tried++
	if w.tried < logTries {
		x.logOwed[k] = w
		return true
	}
	delete(x.logOwed, k)
	return false
}

// logsSettled forgets a held failure: its logs were read, or it passed.
func (x *Reactor) logsSettled(rec *state.Record) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.logOwed, keyOf(rec))
}
