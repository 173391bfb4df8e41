// Package monitor is "owt monitor": one process per tmux server that keeps
// agent status true where hooks cannot, and tells the user when an agent
// needs them.
//
// Each tick costs one tmux process: a batch that lists every pane and
// captures the agent panes whose window had output since their last
// capture (tmux keeps window_activity: of many such, half a tick, so each
// at least every other tick), and a share of those unread for a while;
// more than about a hundred captures take one call per hundred (tmux
// refuses a command line over 16 KiB). The monitor classifies those
// screens with the tool's patterns (agent.Classifier), lets the screen
// correct the recorded status by the rules of status.Reconcile, marks
// agents whose session vanished as exited, and notifies transitions into
// the statuses [notify] on lists, whoever made them (hook, screen, owt).
// It exits when the tmux server does.
package monitor

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/react"
	"github.com/owt-tmux/owt/internal/run/engine"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
)

// DefaultInterval is the longest time between ticks. A tick comes sooner
// when a decision falls due earlier (a reading's debounce ends, a pane has
// been still for still_after), so status is timely while a server of busy
// agents costs one tmux process a second.
const DefaultInterval = time.Second

// minWait is the shortest time between ticks.
const minWait = 100 * time.Millisecond

// EnsureRunning starts the monitor of the tmux server tm talks to unless
// one runs; owt is the owt executable. "owt tmux init" and "owt new" call it.
func EnsureRunning(owt string, tm *tmux.Client) error { return daemon.EnsureRunning(owt, tm) }

// Options configure Run.
type Options struct {
	// Socket is the tmux server's socket (tmux.Client.ServerSocket).
	Socket   string
	Interval time.Duration
	// Log receives one line per event worth knowing (start, stop, errors,
	// notifications).
	Log io.Writer
}

// Run watches the server until it goes away or the process is told to
// stop. A second monitor for the same server returns at once, without error.
func Run(o Options) error {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	lock, err := daemon.Acquire(o.Socket)
	if errors.Is(err, daemon.ErrRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	bin, err := exec.LookPath("tmux") // once, not on every tick
	if err != nil {
		return tmux.ErrNotInstalled
	}
	m := newMonitor(&tmux.Client{Bin: bin, Socket: o.Socket, Timeout: tmuxTimeout}, o.Log)
	m.socket = o.Socket
	m.identify()
	// The bell: hooks ask here to have the record they changed published,
	// rather than each starting "owt _publish". Without it they still do.
	if bell, err := daemon.ListenBell(o.Socket); err != nil {
		m.logf("%v; hooks will start owt _publish", err)
	} else {
		defer bell.Close()
		tm := *m.tm
		go bell.Serve(func(repo, name string) { status.PublishRecord(&tm, repo, name) })
	}
	m.logf("started for %s (every %s)", o.Socket, o.Interval)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(stop)
	gone, unwatch, err := m.tm.WatchServer(m.marker)
	if err != nil {
		return fmt.Errorf("watch tmux server: %w", err)
	}
	defer unwatch()
	defer m.stopFollowing()
	defer m.notifier.replies.close()
	defer m.stopKeeping()
	timer := time.NewTimer(o.Interval)
	defer timer.Stop()
	self := thisProgram()
	for {
		if self.replaced() {
			m.logf("owt at %s was updated; starting the new one", self.path)
			return &UpdatedError{Exe: self.path}
		}
		now := time.Now()
		if err := m.tick(now); err != nil {
			if errors.Is(err, tmux.ErrNoServer) {
				m.logf("tmux server %s is gone; exiting", o.Socket)
				return nil
			}
			if errors.Is(err, tmux.ErrNotInstalled) {
				return err
			}
			m.logf("%v", err)
		}
		timer.Reset(max(m.nextTick(now, o.Interval).Sub(time.Now()), minWait))
		select {
		case s := <-stop:
			m.logf("stopped by %v", s)
			return nil
		case <-gone:
			m.logf("tmux server %s is gone; exiting", o.Socket)
			return nil
		case <-timer.C:
		}
	}
}

// tmuxTimeout bounds each tmux command of the monitor: a wedged or
// stopped server (SIGSTOP, a hung client) costs a tick this much, the
// error is logged, and the next tick tries again.
const tmuxTimeout = 10 * time.Second

// monitor is the state kept between ticks.
type monitor struct {
	tm     *tmux.Client
	lg     *owtlog.Logger // owt's log, as "monitor"
	marker string
	// socket is the server's socket path as records note it
	// (state.Record.Socket).
	socket string
	// server is this server run's identity (tmux.ServerIdentity): only
	// records made on it may be matched by session id.
	server string
	// looked is set after the first tick.
	looked bool
	recs   *recordCache
	// hosts are the status streams of the configured hosts.
	hosts  followers
	screen map[string]*paneView // by pane id
	// alive is when, and in which pane, each record's session was last
	// seen on this server; only records seen here are this monitor's to
	// judge and notify.
	alive map[recKey]sighting
	// dead is when each dead pane was first seen dead (exits).
	dead map[string]time.Time
	// nudged is, per record, the exit event tmux was last asked to look
	// for its children's exits after (nudgeMissedExit).
	nudged map[recKey]time.Time
	// checking are the agents whose resolve is being checked (resolves).
	checking inProgress
	// seen is each record's status as last notified on.
	seen     map[recKey]seenStatus
	panes    []tmux.PaneState
	byID     map[string]tmux.PaneState // panes by id
	ttys     map[recKey]string         // the terminal of each record's pane when last seen
	live     []agentPane               // the records with a live agent pane, this tick
	notifier *notifier
	engine   *engine.Engine // drives the task graphs registered on this server
	courier  *send.Courier  // delivers the messages owt owes this server's agents
	reactor  *react.Reactor // turns failing checks, CI, reviews and conflicts into messages
	told     tellings       // what the reactions asked to tell the user
	dreams   dreamer        // the memory's background consolidation
	// tracker reads the agents' tokens (usage.go); usageAt is when each
	// repository's were last read.
	tracker *usage.Tracker
	// limitsShown is OptUsage as last set, by target ("" global);
	// warned the reset time of each window last told; limitsLooked the
	// agents whose windows were looked at once (limits.go).
	limitsShown  map[string]string
	warned       map[limitKey]time.Time
	limitsLooked map[recKey]bool
	usageAt      map[string]time.Time
	// figures keeps owt list's git figures of this server's worktrees,
	// asking git only about those that changed (figures.go).
	figures figureKeeper
}

func newMonitor(tm *tmux.Client, log io.Writer) *monitor {
	if log == nil {
		log = io.Discard
	}
	lg := owtlog.New(log, "monitor")
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	m := &monitor{
		tm: tm, lg: lg, marker: "⟦owt-monitor-" + hex.EncodeToString(nonce) + "⟧",
		recs: newRecordCache(tm), screen: map[string]*paneView{},
		alive: map[recKey]sighting{}, seen: map[recKey]seenStatus{},
		ttys: map[recKey]string{},
	}
	m.notifier = newNotifier(tm, m.note)
	return m
}

// logf writes one entry about the monitor itself (or one the packages
// it drives make: runs, reactions, the outbox).
func (m *monitor) logf(format string, args ...any) {
	m.lg.Infof(owtlog.Fields{Event: "monitor"}, format, args...)
}

// note writes one entry about the agent of r: event says what happened
// ("status", "exited", "notify", "error").
func (m *monitor) note(r *state.Record, event, format string, args ...any) {
	f := owtlog.Fields{Repo: r.Repo, Agent: r.Name, Event: event}
	if event == "error" {
		m.lg.Errorf(f, format, args...)
		return
	}
	m.lg.Infof(f, format, args...)
}

// tick is one look at the server: read state, snapshot panes, reconcile,
// notify.
func (m *monitor) tick(now time.Time) error {
	changed, err := m.recs.refresh(m.logf)
	if err != nil {
		m.logf("read state: %v", err)
	}
	panes, captures, err := m.tm.Snapshot(m.toCapture(now), m.marker)
	if err != nil {
		return err
	}
	m.panes = panes
	m.byID = make(map[string]tmux.PaneState, len(panes))
	for _, p := range panes {
		m.byID[p.ID] = p
	}
	m.live = m.agentPanes()
	m.observe(panes, captures, now)
	m.reconcile(now)
	m.exits(now)
	if changed {
		m.recs.publishSummary()
	}
	m.notifyTransitions()
	m.keepFigures(now)
	m.runs(now)
	m.reactions(now)
	m.resolves(now)
	m.deliver(now)
	m.dream(now)
	m.readUsage(now)
	m.followHosts()
	m.ageUnreachable(now)
	return nil
}

// identify learns which run of the tmux server this monitor watches.
func (m *monitor) identify() {
	if id, err := m.tm.ServerIdentity(); err == nil {
		m.server = id
	}
}
