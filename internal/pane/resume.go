package pane

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
)

// Resuming: a record whose Resume is pending (owt restore, owt attach,
// doctor --fix, a run's resume brought it back) starts its tool on the
// tool's own session — Profile.ResumeArgv, no task — so the conversation
// goes on and the task is not sent again. It is "resumed" only once that
// is shown: the tool's hook names the same session, or its ready screen
// came up (no dialog on it) and it still runs readyHold later, or it has
// run for resumeHold with no dialog up. While a dialog waits for the
// user it stays "resuming". A tool that exits before (Claude Code: "No conversation
// found with session ID"; Codex: "No saved session found") did not
// resume: the runner says so in the pane, and the tool starts fresh with
// the record's prompt, the task after an account of the work already in
// the worktree (lifecycle.ResumeAgent wrote it).

// resumeHold is how long a resumed tool that shows no ready screen and
// names no session must run before owt calls it resumed; readyHold how
// long it must still run once its ready screen showed.
// readyHold is long: Codex 0.169 draws its composer before it loads the
// thread, and exits ~2 s later when it cannot ("Failed to resume session
// from …"); Claude Code says "No conversation found" before it draws.
const (
	resumeHold = 20 * time.Second
	readyHold  = 5 * time.Second
)

// resumeAgent starts the tool on rec's session. ran reports that the
// tool resumed and has now ended (code is its exit code); false means
// it did not resume and the caller starts it fresh.
func (w *runner) resumeAgent(rec *state.Record, prof agent.Profile, out io.Writer) (code int, ran bool, err error) {
	session := rec.Resume.Session
	argv, err := prof.ResumeArgv(session, rec.Plan, w.Config.Agent.AutoApprove)
	if err != nil {
		w.settleResume(rec, state.ResumeFresh, err.Error())
		return 0, false, nil
	}
	argv, env := w.withOwt(rec, prof, argv, out)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		w.settleResume(rec, state.ResumeFresh, fmt.Sprintf("start %s: %v", rec.Tool, err))
		return 0, false, nil
	}
	// A clean screen: what the ready pattern finds is then the tool's,
	// not the setup's output above it.
	fmt.Fprintf(out, "\x1b[H\x1b[2Jowt: resuming %s session %s\n", rec.Tool, session)
	w.setResume(rec.Name, state.ResumeResuming, "")
	started := time.Now()
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		// Whether it resumed is for its watcher to prove, or for the
		// runner after it (Died) to find it did not.
		err := w.execInPane(rec, pane, path, argv, env, watchPlan{Mode: watchResume, Session: session, Started: started})
		fmt.Fprintf(out, "owt: %v (owt waits for the agent itself)\n", err)
	}
	cmd, err := startForeground(path, argv[1:], rec.Path, env)
	if err != nil {
		w.settleResume(rec, state.ResumeFresh, fmt.Sprintf("start %s: %v", rec.Tool, err))
		return 0, false, nil
	}
	// The runner alone waits for the tool (waitWhile) while the watch
	// looks for proof.
	gone, proved := make(chan struct{}), make(chan struct{})
	resumed := false
	go func() {
		defer close(proved)
		resumed = w.watchResume(rec, prof, session, started, gone)
	}()
	c, ended, werr := waitWhile(cmd.Process.Pid, proved)
	if ended || werr != nil {
		close(gone)
		<-proved
	}
	if resumed || !ended && werr == nil {
		// Proven, or the proof was refused while it still runs (the
		// record moved on meanwhile): either way this is the tool.
		if !ended && werr == nil {
			c, werr = waitAgent(cmd.Process)
		}
		takeForeground()
		return c, true, werr
	}
	takeForeground()
	why := fmt.Sprintf("%s exited with code %d", rec.Tool, c)
	if line := exitWords(w.paneText()); line != "" {
		why += ": " + line
	}
	w.settleResume(rec, state.ResumeFresh, why)
	fmt.Fprintf(out, "owt: %s could not resume session %s (%s).\n", rec.Tool, session, why)
	return 0, false, nil
}

// watchResume waits until the tool shows it resumed and records so
// (true), or it exits first, or the record is no longer resuming (false).
func (w *runner) watchResume(rec *state.Record, prof agent.Profile, session string, started time.Time, gone <-chan struct{}) bool {
	pane := os.Getenv("TMUX_PANE")
	ready, _ := agent.CompilePattern(prof.Ready)
	cl := w.ClassifierOf(prof)
	var readySince time.Time
	var held time.Duration // how long it ran with no dialog up
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-gone:
			return false
		case <-tick.C:
		}
		proof := ""
		if r, err := w.Get(rec.Name); err == nil && r.AgentSession == session && hookSince(r, started) {
			proof = "hook"
		}
		dialog := false
		if proof == "" && pane != "" {
			screen, err := w.Tmux.Capture(pane)
			// A dialog (a trust question, a login) is not the session
			// taken up: it is the user's to answer first.
			dialog = err == nil && cl != nil && cl.Classify(screen) == agent.ClassWaiting
			if err == nil && ready != nil && !dialog && ready.MatchString(screen) {
				if readySince.IsZero() {
					readySince = time.Now()
				}
			} else {
				readySince = time.Time{}
			}
			if !readySince.IsZero() && time.Since(readySince) >= readyHold {
				proof = "screen"
			}
		}
		if !dialog {
			held += 100 * time.Millisecond
		}
		if proof == "" && held >= resumeHold {
			proof = "ran"
		}
		if proof == "" {
			continue
		}
		select {
		case <-gone: // it ended meanwhile: not resumed
			return false
		default:
		}
		// Only a resume still under way, of a tool still running, is
		// proven: the runner after a tool that exited meanwhile may have
		// started it fresh.
		if w.agentGone != nil && w.agentGone() || !w.settleResume(rec, state.ResumeResumed, "") {
			return false
		}
		w.leaveStarting(rec.Name, state.Idle)
		return true
	}
}

// hookSince reports whether a hook event of a running tool reached the
// record since t: not its end (Claude Code fires SessionEnd, naming the
// session, as it exits on an id it cannot resume).
func hookSince(r *state.Record, t time.Time) bool {
	for _, h := range r.Hooks {
		if !h.At.Before(t) && h.Status != state.Exited {
			return true
		}
	}
	return false
}

// paneText is this pane's screen ("" outside tmux).
func (w *runner) paneText() string {
	pane := os.Getenv("TMUX_PANE")
	if pane == "" {
		return ""
	}
	screen, _ := w.Tmux.Capture(pane)
	return screen
}

// exitWords is what a tool that exited at once said on its screen: of
// the lines it printed, the first that reads as an error ("Error: No
// saved session found …", "No conversation found …"), else its first;
// at most 200 characters.
func exitWords(screen string) string {
	var said []string
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimSpace(oneLine(l))
		switch {
		case strings.HasPrefix(l, "owt: resuming"):
			said = said[:0] // what the tool printed comes after
		case l != "":
			said = append(said, l)
		}
	}
	if len(said) == 0 {
		return ""
	}
	pick := said[0]
	for _, l := range said {
		if errorWords().MatchString(l) {
			pick = l
			break
		}
	}
	if r := []rune(pick); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return pick
}

var errorWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\berror\b|not found|no \w+( \w+)? found|invalid|unknown`)
})

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// setResume records how the resume goes, and reports whether it did: a
// resume is settled once (settled).
func (w *runner) setResume(name, outcome, why string) bool {
	changed := false
	err := w.Store.Update(func(f *state.File) error {
		changed = false
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		if r.Resume == nil || settled(outcome, r.Resume.Outcome) {
			return state.ErrNoChange
		}
		r.Resume.Outcome, r.Resume.Why, r.Resume.At = outcome, why, w.Now()
		changed = true
		switch outcome {
		case state.ResumeResumed:
			r.Prompt = "" // the fresh start's words are not needed: kilobytes every hook reads
		case state.ResumeFresh:
			if r.AgentSession == r.Resume.Session {
				r.AgentSession = "" // a new conversation; its hooks name it
			}
			if r.Status == state.Exited {
				// The tool that could not resume said it ended (Claude's
				// SessionEnd): the fresh one starts now.
				now := w.Now()
				r.SetStatus(state.Starting, state.FromOwt, now)
				r.ExitCode, r.EventAt = nil, now
			}
		}
		return nil
	})
	if err != nil {
		w.Logf("%s: %v", name, err)
	}
	return err == nil && changed
}

// settled reports whether a resume now at outcome cannot go to next: a
// proof needs a resume under way, a fresh start one not yet settled (the
// watcher that proved it and the runner after a tool's exit race).
func settled(next, outcome string) bool {
	switch next {
	case state.ResumeResumed:
		return outcome != state.ResumeResuming
	case state.ResumeFresh:
		return outcome == state.ResumeResumed || outcome == state.ResumeFresh
	}
	return false
}

// settleResume ends a resume in outcome (rec.Resume is updated too), and
// reports whether it did (setResume).
func (w *runner) settleResume(rec *state.Record, outcome, why string) bool {
	if rec.Resume == nil {
		return false
	}
	if !w.setResume(rec.Name, outcome, why) {
		return false
	}
	rec.Resume.Outcome, rec.Resume.Why = outcome, why
	status.PublishCurrent(&w.Ledger, rec.Name)
	return true
}
