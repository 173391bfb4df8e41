package monitor

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
)

// messageTime is how long the status-line message stays up.
const messageTime = 5 * time.Second

// seenStatus is a record's status as last seen: a new "since" is a new
// transition even when the status name is the same (waiting, answered,
// waiting again between two ticks).
type seenStatus struct {
	status state.Status
	since  time.Time
}

// notifier tells the user about one transition in every way configured.
type notifier struct {
	tm       *tmux.Client
	note     func(r *state.Record, event, format string, args ...any) // an entry in owt's log about r
	msgDelay time.Duration                                            // 0 on tmux < 3.2, which has no display-message -d
}

func newNotifier(tm *tmux.Client, note func(r *state.Record, event, format string, args ...any)) *notifier {
	n := &notifier{tm: tm, note: note}
	if major, minor, err := tm.Version(); err == nil && (major > 3 || major == 3 && minor >= 2) {
		n.msgDelay = messageTime
	}
	return n
}

// notifyTransitions notifies, once, each status change since the last
// tick of a record this server runs, into a status [notify] on lists. The
// first look at a record only notes its status.
func (m *monitor) notifyTransitions() {
	for _, r := range m.recs.records {
		key := recKey{r.Repo, r.Name}
		cur := seenStatus{r.Status, r.StatusSince}
		prev, known := m.seen[key]
		m.seen[key] = cur
		if !known || prev.status == cur.status && prev.since.Equal(cur.since) {
			continue
		}
		if _, ours := m.alive[key]; !ours {
			continue
		}
		cfg := m.recs.repo(r.Repo, m.logf).ws.Config.Notify
		if !contains(cfg.On, string(r.Status)) {
			continue
		}
		if r.Status == state.Idle && r.Interrupted {
			continue // the user stopped it (Esc): they know
		}
		if m.stoppedOnScreen(r) {
			// A hook's end of turn (Gemini's AfterAgent fires after Esc
			// too) under a new mark of a stopped turn: the user stopped
			// it, which the screen records a moment later.
			continue
		}
		if r.Status == state.Idle && m.limitOnScreen(r) {
			// A hook's end of turn (Codex's) with a usage limit on screen:
			// no finished turn; the screen makes it limited, said then.
			continue
		}
		if r.Status == state.Idle && r.TurnError.Empty() && r.Source != state.FromHook && prev.status != state.Working {
			// The screen turned idle after a dialog (trust accepted, a
			// permission declined) or a start-up: no turn finished. (A
			// hook's idle is the end of a turn, however quick; a turn
			// that failed behind a sign-in screen is said, with how to
			// send the task again.)
			continue
		}
		m.notifier.notify(r, cfg, m.paneTTY(r))
	}
}

func (m *monitor) paneTTY(r *state.Record) string {
	for _, p := range m.panes {
		if p.ID == r.Pane && p.SessionName == r.Session {
			return p.TTY
		}
	}
	return ""
}

// notify shows the transition on every client not looking at the agent's
// pane, rings the bell in that pane, and runs notify-send and the user's
// command. When someone is looking at the pane already, they see it
// happen: only the other clients get the message, and nothing else fires.
func (n *notifier) notify(r *state.Record, cfg config.Notify, tty string) {
	n.notifyText(r, cfg, tty, notice{text: message(r), status: string(r.Status), event: "status"})
}

// notice is one thing told: its text, and what [notify] command gets of
// it (OWT_STATUS, OWT_EVENT, and for a run's task OWT_RUN and OWT_TASK).
type notice struct {
	text, status, event string
	run, task           string
	// agentWaiting: a run notice's task's agent waits at its own prompt
	// (see saidByStatus).
	agentWaiting bool
}

// notifyText is notify with its own notice (a reaction or a run's task
// that needs the user).
func (n *notifier) notifyText(r *state.Record, cfg config.Notify, tty string, nt notice) {
	text := nt.text
	clients, err := n.tm.ClientViews()
	if err != nil {
		n.note(r, "error", "notify %s: %v", r.Name, err)
	}
	watched := false
	var others []string
	for _, c := range clients {
		switch {
		case c.Control:
		case c.Pane == r.Pane:
			watched = true
		default:
			others = append(others, c.Name)
		}
	}
	if err := n.tm.Message(others, text, n.msgDelay); err != nil {
		n.note(r, "error", "notify %s: %v", r.Name, err)
	}
	if watched {
		n.note(r, "notify", "%s (shown on %d client(s); someone is looking at it)", text, len(others))
		return
	}
	n.note(r, "notify", "%s (shown on %d client(s))", text, len(others))
	if tty != "" {
		if err := tmux.Bell(tty); err != nil {
			n.note(r, "error", "notify %s: %v", r.Name, err)
		}
	}
	if cfg.Desktop {
		n.start(exec.Command("notify-send", "--app-name=owt", "owt", text), r)
	}
	if len(cfg.Command) > 0 {
		cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
		cmd.Dir = r.Path
		code := ""
		if r.ExitCode != nil {
			code = fmt.Sprint(*r.ExitCode)
		}
		cmd.Env = append(os.Environ(), "OWT_NAME="+r.Name, "OWT_STATUS="+nt.status, "OWT_EVENT="+nt.event,
			"OWT_TEXT="+text, "OWT_RUN="+nt.run, "OWT_TASK="+nt.task,
			"OWT_REPO="+r.Repo, "OWT_PATH="+r.Path, "OWT_EXIT_CODE="+code)
		n.start(cmd, r)
	}
}

// start runs a notification program without waiting for it (it is reaped
// in the background, so a slow one never holds the monitor up).
func (n *notifier) start(cmd *exec.Cmd, r *state.Record) {
	if devnull, err := os.Open(os.DevNull); err == nil {
		cmd.Stdin = devnull
		defer devnull.Close()
	}
	if err := cmd.Start(); err != nil {
		n.note(r, "error", "notify %s: %v", r.Name, err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

func message(r *state.Record) string {
	switch r.Status {
	case state.Waiting:
		if r.WaitingFor == "" {
			return "owt: " + r.Name + " needs you"
		}
		if words, ok := waitWords[r.WaitingFor]; ok {
			return "owt: " + r.Name + " needs you: " + r.Tool + " asks for " + words
		}
		return "owt: " + r.Name + " needs you (" + r.WaitingFor + ")"
	case state.Limited:
		return "owt: " + r.Name + " hit a " + r.Limit.Why(time.Now()) + "; owt send " + r.Name + " TEXT, or wait for the reset"
	case state.Idle:
		if !r.TurnError.Empty() {
			return "owt: " + r.Name + "'s turn failed (" + r.TurnError.Line() + "); 'owt send " + r.Name + " --task' sends the task again"
		}
		return "owt: " + r.Name + " finished its turn"
	case state.Exited:
		if r.ExitCode != nil {
			return fmt.Sprintf("owt: %s exited (code %d)", r.Name, *r.ExitCode)
		}
		return "owt: " + r.Name + " exited"
	}
	return "owt: " + r.Name + " is " + string(r.Status)
}

// waitWords say what a first-run screen asks for, for each of its
// reasons (agent.FirstRunWait).
var waitWords = map[string]string{
	agent.WaitTrust:  "you to trust the folder",
	agent.WaitHooks:  "you to review and trust its hooks",
	agent.WaitLogin:  "a login",
	agent.WaitAPIKey: "an API key",
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// limitOnScreen reports whether r's pane, as last read, shows the usage
// limit that ended its turn.
// stoppedOnScreen reports whether r, idle by a hook, shows on its pane as
// read this tick a mark of that turn stopped (status.StoppedUnderHook).
func (m *monitor) stoppedOnScreen(r *state.Record) bool {
	p, ok := m.paneOf(r)
	if !ok {
		return false
	}
	v := m.screen[p.ID]
	return v != nil && status.StoppedUnderHook(r, status.Observation{Class: v.class, ClassSince: v.classSince, Interrupted: v.interrupted})
}

func (m *monitor) limitOnScreen(r *state.Record) bool {
	p, ok := m.paneOf(r)
	if !ok {
		return false
	}
	v := m.screen[p.ID]
	return v != nil && v.limit != nil
}
