package monitor

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/notify"
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

// notifier tells the user about one transition in every way configured:
// the tmux message and the bell here, the channels (internal/notify) in
// the background.
type notifier struct {
	tm       *tmux.Client
	note     func(r *state.Record, event, format string, args ...any) // an entry in owt's log about r
	msgDelay time.Duration                                            // 0 on tmux < 3.2, which has no display-message -d
	disp     *notify.Dispatcher
	replies  *replies // the ntfy notices' buttons, answered
}

func newNotifier(tm *tmux.Client, note func(r *state.Record, event, format string, args ...any)) *notifier {
	n := &notifier{tm: tm, note: note, replies: newReplies(tm, note)}
	n.disp = &notify.Dispatcher{Failed: func(nt notify.Notice, channel string, err error) {
		note(&state.Record{Repo: nt.Repo, Name: nt.Agent}, "error", "notify %s through %s: %v", nt.Agent, channel, err)
	}}
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
		if !m.notifier.wanted(cfg, string(r.Status)) {
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
		nt := notice{text: message(r), status: string(r.Status), event: "status"}
		if r.Status == state.Waiting && cfg.Ntfy.Reply && cfg.Ntfy.Topic != "" {
			// The buttons answer this prompt only: it is named as it
			// stands now, with its choices.
			var choices []agent.Choice
			nt.prompt, choices = promptOf(m.recs.repo(r.Repo, m.logf).ws, r)
			for _, c := range choices {
				nt.choices = append(nt.choices, c.Label)
			}
		}
		m.notifier.notifyText(r, cfg, m.paneTTY(r), nt)
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
	host                string // the host of an agent on another machine
	// agentWaiting: a run notice's task's agent waits at its own prompt
	// (see saidByStatus).
	agentWaiting bool
	// prompt and choices name the prompt a waiting agent's notice is
	// about and its numbered choices (promptOf), for ntfy's buttons.
	prompt  string
	choices []string
}

// wanted reports whether a notice of status goes anywhere: [notify] on
// (the tmux message and the bell) or a channel's own on.
func (n *notifier) wanted(cfg config.Notify, status string) bool {
	return notify.Wanted(cfg, notify.Configured(cfg, n.deps()), status)
}

func (n *notifier) deps() notify.Deps {
	return notify.Deps{Tmux: n.tm, Tickets: &n.replies.tickets}
}

// notifyText is notify with its own notice (a reaction or a run's task
// that needs the user). The tmux message and the bell say what [notify]
// on lists (and every reaction); each channel what its own on lists.
func (n *notifier) notifyText(r *state.Record, cfg config.Notify, tty string, nt notice) {
	text := nt.text
	inOn := contains(cfg.On, nt.status) || nt.event == "reaction"
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
	if !inOn {
		others = nil
	}
	if err := n.tm.Message(others, text, n.msgDelay); err != nil {
		n.note(r, "error", "notify %s: %v", r.Name, err)
	}
	if watched {
		n.note(r, "notify", "%s (shown on %d client(s); someone is looking at it)", text, len(others))
		return
	}
	n.note(r, "notify", "%s (shown on %d client(s))", text, len(others))
	if tty != "" && inOn {
		if err := tmux.Bell(tty); err != nil {
			n.note(r, "error", "notify %s: %v", r.Name, err)
		}
	}
	routes := notify.Configured(cfg, n.deps())
	if nt.event == "reaction" {
		// A reaction whose action is notify goes to every channel, as it
		// always went to notify-send and the command.
		for i := range routes {
			routes[i].On = append(routes[i].On[:len(routes[i].On):len(routes[i].On)], nt.status)
		}
	}
	n.disp.Dispatch(routes, noticeOf(r, nt))
}

// noticeOf is what the channels get of nt about r.
func noticeOf(r *state.Record, nt notice) notify.Notice {
	code := ""
	if r.ExitCode != nil {
		code = fmt.Sprint(*r.ExitCode)
	}
	when := r.StatusSince
	if when.IsZero() {
		when = time.Now()
	}
	pr := ""
	if r.PR != nil {
		pr = r.PR.URL
	}
	return notify.Notice{
		Event: nt.event, Agent: r.Name, Repo: r.Repo, Host: nt.host, Status: nt.status, Reason: r.WaitingFor,
		Text: nt.text, Time: when, Session: r.Session, Pane: r.Pane, PR: pr,
		Path: r.Path, Run: nt.run, Task: nt.task, ExitCode: code,
		Prompt: nt.prompt, Choices: nt.choices,
	}
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
