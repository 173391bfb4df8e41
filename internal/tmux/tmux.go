// Package tmux is the only code in owt that runs tmux. It offers typed
// operations that target sessions and panes by id ($N, %N) — never by
// "session:window.pane" positions, which break under base-index 1.
//
// tmux is always run directly (no shell). tmux itself follows $TMUX to the
// server of the client owt runs in, and TMUX_TMPDIR / the default socket
// otherwise, so owt talks to the server the user is looking at.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
)

// ErrNotInstalled is returned when no tmux binary is on PATH.
var ErrNotInstalled = errors.New("tmux is not installed (install it with your package manager, e.g. apt-get install tmux)")

// ErrNoServer is returned when no tmux server is running.
var ErrNoServer = errors.New("no tmux server is running (start tmux first)")

// Client runs tmux commands against one server.
type Client struct {
	// Bin is the tmux executable.
	Bin string
	// Socket, when set, is passed as -S (tests and the monitor use it);
	// empty means tmux's own choice ($TMUX, then the default socket).
	Socket string

	// Timeout, when set, bounds each tmux command of this client: the
	// monitor's, so a wedged server costs a tick the timeout, not for
	// ever.
	Timeout time.Duration

	// ctx bounds every tmux command of this client (nil: none); see
	// WithContext.
	ctx context.Context
}

// WithContext returns a copy of c whose tmux commands run under ctx: when
// it ends (a deadline of the monitor, a cancel), the tmux client process
// is killed and the call fails with ctx's error. A stopped or wedged
// server then costs the caller the deadline, not for ever.
func (c *Client) WithContext(ctx context.Context) *Client {
	cp := *c
	cp.ctx = ctx
	return &cp
}

// bounded is ctx with the client's Timeout on it, when it has one.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.Timeout > 0 {
		return context.WithTimeout(ctx, c.Timeout)
	}
	return ctx, func() {}
}

func (c *Client) context() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// New returns a client for the server owt is running under.
func New() *Client { return &Client{Bin: "tmux"} }

// Available reports whether the tmux binary can be found.
func (c *Client) Available() error {
	if _, err := exec.LookPath(c.Bin); err != nil {
		return ErrNotInstalled
	}
	return nil
}

// Inside reports whether owt runs inside a tmux client ($TMUX set).
func Inside() bool { return os.Getenv("TMUX") != "" }

// InsideThis reports whether owt runs inside a client of the server c
// talks to: only then can it switch that client (switch-client) rather
// than attach a new one.
func (c *Client) InsideThis() bool {
	env := os.Getenv("TMUX")
	if env == "" {
		return false
	}
	if c.Socket == "" {
		return true
	}
	mine, _, _ := strings.Cut(env, ",")
	return sameFile(mine, c.Socket)
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// escapeArg protects an argument from tmux's command parser, which treats
// a trailing ";" as a command separator even in argv (cmd-parse.c). tmux
// turns a trailing "\;" back into a literal ";".
func escapeArg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

func (c *Client) command(stdin []byte, args ...string) *exec.Cmd {
	return c.commandIn(c.context(), stdin, args...)
}

// commandIn is the one place tmux is started (through internal/proc: the
// context's deadline, OWT_TRACE's trace).
func (c *Client) commandIn(ctx context.Context, stdin []byte, args ...string) *exec.Cmd {
	// -u: without a UTF-8 locale tmux would print the \x1f field separator
	// (and any non-ASCII text) as '_', and owt could not read its answers.
	full := make([]string, 0, len(args)+3)
	full = append(full, "-u")
	if c.Socket != "" {
		full = append(full, "-S", c.Socket)
	}
	for _, a := range args {
		if a == batchSep {
			full = append(full, ";")
			continue
		}
		full = append(full, escapeArg(a))
	}
	cmd := proc.Command(ctx, c.Bin, full...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return cmd
}

// Run runs one tmux command and returns its stdout without the final newline.
func (c *Client) Run(args ...string) (string, error) {
	return c.run(nil, args...)
}

// RunBatch runs several tmux commands in one tmux call (one process, one
// round trip), separated the way tmux's own command line separates them;
// as few calls as tmux takes, when they are too long for one (batches).
func (c *Client) RunBatch(cmds ...[]string) (string, error) {
	return c.runBatches(c.context(), cmds)
}

// maxBatchBytes bounds one tmux call's arguments: the client hands its
// command line to the server in one message, and tmux (3.3: 16 KiB less
// its header) refuses a longer one with "command too long", running none
// of it. 500 agents' session options in one call were refused, and each
// was then set with a tmux process of its own.
const maxBatchBytes = 12 << 10

// batches splits cmds, in order, into runs whose arguments fit in one
// tmux call (a single command longer than that goes alone: tmux says so).
func batches(cmds [][]string) [][][]string {
	var out [][][]string
	size := 0
	for _, cmd := range cmds {
		n := len(batchSep)
		for _, a := range cmd {
			n += len(a) + 1
		}
		if len(out) == 0 || size+n > maxBatchBytes {
			out = append(out, nil)
			size = 0
		}
		out[len(out)-1] = append(out[len(out)-1], cmd)
		size += n
	}
	return out
}

// runBatches runs cmds in as few tmux calls as fit (batches), in order,
// and stops at the first call that fails, as tmux stops a call's
// commands at the first that fails; the outputs are joined.
func (c *Client) runBatches(ctx context.Context, cmds [][]string) (string, error) {
	var outs []string
	for _, b := range batches(cmds) {
		out, err := c.runIn(ctx, nil, batchArgs(b)...)
		if err != nil {
			return strings.Join(append(outs, out), "\n"), err
		}
		if out != "" {
			outs = append(outs, out)
		}
	}
	return strings.Join(outs, "\n"), nil
}

// batchArgs joins commands into one tmux argv.
func batchArgs(cmds [][]string) []string {
	var args []string
	for i, cmd := range cmds {
		if i > 0 {
			args = append(args, batchSep)
		}
		args = append(args, cmd...)
	}
	return args
}

// batchSep is the command separator; command() passes it through unescaped.
const batchSep = "\x00;"

func (c *Client) run(stdin []byte, args ...string) (string, error) {
	return c.runIn(c.context(), stdin, args...)
}

func (c *Client) runIn(ctx context.Context, stdin []byte, args ...string) (string, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	cmd := c.commandIn(ctx, stdin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := proc.Run(ctx, cmd); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrNotInstalled
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("tmux %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if _, exited := proc.ExitCode(err); exited && isNoServer(msg) {
			return "", ErrNoServer
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("tmux %s: %s", args[0], msg)
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// FormatLiteral escapes s for a tmux argument that is expanded as a
// format, so it is taken literally.
func FormatLiteral(s string) string { return strings.ReplaceAll(s, "#", "##") }

func isNoServer(msg string) bool {
	return strings.HasPrefix(msg, "no server running") ||
		strings.HasPrefix(msg, "error connecting to") ||
		strings.Contains(msg, "server exited unexpectedly")
}

// Running reports whether a server is reachable.
func (c *Client) Running() bool {
	_, err := c.Run("list-sessions", "-F", "#{session_id}")
	return err == nil
}

var versionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+)\.(\d+)`) })

// Version returns tmux's major and minor version ("tmux 3.3a" → 3, 3;
// "tmux next-3.5" → 3, 5).
func (c *Client) Version() (major, minor int, err error) {
	out, err := c.Run("-V")
	if err != nil {
		return 0, 0, err
	}
	m := versionRe().FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("unrecognised tmux version %q", out)
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, nil
}

// Session is a tmux session.
type Session struct {
	ID       string // $N
	Name     string
	Attached bool
	Path     string
	// Server is the identity of the server run holding the session (see
	// ServerIdentity); a record's session id means something only there.
	Server string
}

// fieldSep separates fields in -F output; tmux session names cannot hold it.
const fieldSep = "\x1f"

// Sessions lists the server's sessions; none (and no error) when no server runs.
func (c *Client) Sessions() ([]Session, error) {
	out, err := c.Run("list-sessions", "-F", sessionFormat)
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ss []Session
	for _, line := range strings.Split(out, "\n") {
		if s, ok := parseSession(line); ok {
			ss = append(ss, s)
		}
	}
	return ss, nil
}

// sessionFormat is what owt lists of a session; parseSession reads it.
var sessionFormat = strings.Join([]string{"#{session_id}", "#{session_name}", "#{session_attached}", "#{session_path}", serverFormat}, fieldSep)

func parseSession(line string) (Session, bool) {
	f := strings.Split(line, fieldSep)
	if len(f) != 5 || !strings.HasPrefix(f[0], "$") {
		return Session{}, false
	}
	return Session{ID: f[0], Name: f[1], Attached: f[2] != "0", Path: f[3], Server: serverIdentity(f[4])}, true
}

// FindSession returns the session with exactly this name.
func (c *Client) FindSession(name string) (Session, bool, error) {
	ss, err := c.Sessions()
	if err != nil {
		return Session{}, false, err
	}
	for _, s := range ss {
		if s.Name == name {
			return s, true, nil
		}
	}
	return Session{}, false, nil
}

// NewSession describes a session to create.
type NewSession struct {
	Name string
	Dir  string
	Env  map[string]string
	// Argv runs directly (execvp, no shell) when it has two or more
	// elements. Empty means the user's default shell.
	Argv []string
	// WindowName names the first window (and turns its automatic-rename
	// off), so a window list shows the agent, not the process running it.
	WindowName string
	Width      int
	Height     int
	// Global are global user options set in the same tmux call (owt's
	// status bar summary, which must count the new session, set before
	// anything in the session can publish a newer one).
	Global map[string]string
	// Refresh are clients whose status line is redrawn in the same call.
	Refresh []string
}

// Created identifies a new session and its first pane.
type Created struct {
	SessionID string
	PaneID    string
	// SessionName is the name tmux gave the session (it rewrites some
	// characters), which is the one to record.
	SessionName string
	// Server identifies the server's run (see ServerIdentity).
	Server string
}

// NewSession creates a detached session and returns its ids. Its options
// are set by MarkSession, which names it by the id this call returns: a
// set-option without -t after new-session would land on the session of
// whoever runs owt ($TMUX_PANE), not on the new one.
func (c *Client) NewSession(ns NewSession) (Created, error) {
	if len(ns.Argv) == 1 {
		// One argument would be run by "sh -c"; never hand tmux a shell string.
		return Created{}, fmt.Errorf("tmux new-session: a command needs at least two argv elements")
	}
	// tmux expands formats in -s, -n and -c ("#{…}", and "#(…)" runs a
	// shell command), so a '#' must reach tmux as "##".
	args := []string{"new-session", "-d", "-P", "-F", "#{session_id}" + fieldSep + "#{pane_id}" + fieldSep + "#{session_name}" + fieldSep + serverFormat, "-s", FormatLiteral(ns.Name), "-c", FormatLiteral(ns.Dir)}
	if ns.WindowName != "" {
		args = append(args, "-n", FormatLiteral(ns.WindowName))
	}
	if ns.Width > 0 && ns.Height > 0 {
		args = append(args, "-x", strconv.Itoa(ns.Width), "-y", strconv.Itoa(ns.Height))
	}
	for _, k := range sortedKeys(ns.Env) {
		args = append(args, "-e", k+"="+ns.Env[k])
	}
	if len(ns.Argv) > 0 {
		args = append(args, "--")
		args = append(args, ns.Argv...)
	}
	cmds := [][]string{args}
	for _, k := range sortedKeys(ns.Global) {
		cmds = append(cmds, []string{"set-option", "-q", "-g", k, ns.Global[k]})
	}
	for _, cl := range ns.Refresh {
		if cl != "" {
			cmds = append(cmds, []string{"refresh-client", "-S", "-t", cl})
		}
	}
	out, err := c.RunBatch(cmds...)
	if err != nil {
		return Created{}, err
	}
	f := strings.Split(strings.SplitN(out, "\n", 2)[0], fieldSep)
	if len(f) != 4 || !strings.HasPrefix(f[0], "$") || !strings.HasPrefix(f[1], "%") {
		return Created{}, fmt.Errorf("tmux new-session: unexpected output %q", out)
	}
	return Created{SessionID: f[0], PaneID: f[1], SessionName: f[2], Server: serverIdentity(f[3])}, nil
}

// MarkSession sets user options on the session with id sessionID (or of
// the pane with id %N), each
// unless something set it first (-o: the session's own runner may already
// have published a newer @owt-status), and redraws the status line of
// clients, in one tmux call.
func (c *Client) MarkSession(sessionID string, options map[string]string, clients []string) error {
	var cmds [][]string
	for _, k := range sortedKeys(options) {
		cmds = append(cmds, []string{"set-option", "-q", "-o", "-t", sessionID, k, options[k]})
	}
	for _, cl := range clients {
		if cl != "" {
			cmds = append(cmds, []string{"refresh-client", "-S", "-t", cl})
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := c.RunBatch(cmds...)
	return err
}

// DefaultSize is the size of a session made while no client is attached
// (tmux's own default is 80x24, which wraps most agents' footers).
const DefaultSize = "200x50"

// Survey is what owt new needs to know of the server before it makes a
// session, asked in one tmux call: the sessions, the attached clients, and
// the session of the pane owt runs in ($TMUX_PANE), if any.
type Survey struct {
	Sessions []Session
	Clients  []ClientInfo
	Here     string // session id of $TMUX_PANE
}

// ClientInfo is an attached client.
type ClientInfo struct {
	Name          string
	Session       string // its session's id
	Width, Height int
	Activity      int
}

// Survey lists sessions and clients in one call; none (and no error) when
// no server runs.
func (c *Client) Survey() (Survey, error) {
	clientFields := []string{"c", "#{client_name}", "#{client_session}", "#{client_width}", "#{client_height}", "#{client_activity}"}
	cmds := [][]string{
		{"list-sessions", "-F", "s" + fieldSep + sessionFormat},
		{"list-clients", "-F", strings.Join(clientFields, fieldSep)},
	}
	if pane := os.Getenv("TMUX_PANE"); pane != "" && os.Getenv("TMUX") != "" {
		cmds = append(cmds, []string{"display-message", "-p", "-t", pane, "h" + fieldSep + "#{session_id}"})
	}
	out, err := c.RunBatch(cmds...)
	if errors.Is(err, ErrNoServer) {
		return Survey{}, nil
	}
	if err != nil && out == "" {
		return Survey{}, err
	}
	var sv Survey
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, fieldSep)
		switch {
		case f[0] == "s":
			if s, ok := parseSession(strings.TrimPrefix(l, "s"+fieldSep)); ok {
				sv.Sessions = append(sv.Sessions, s)
			}
		case f[0] == "c" && len(f) == len(clientFields):
			w, _ := strconv.Atoi(f[3])
			h, _ := strconv.Atoi(f[4])
			a, _ := strconv.Atoi(f[5])
			sv.Clients = append(sv.Clients, ClientInfo{Name: f[1], Session: f[2], Width: w, Height: h, Activity: a})
		case f[0] == "h" && len(f) == 2:
			sv.Here = f[1]
		}
	}
	return sv, nil
}

// UserSize is the size of the terminal the user is on: a client showing
// the session owt runs in, most recently active first; else the largest
// attached client. ok is false when no client is attached.
func (sv Survey) UserSize() (width, height int, ok bool) {
	// A client on the caller's session beats any other, the most recently
	// active of them; otherwise the largest.
	better := func(a, b ClientInfo) bool {
		aHere, bHere := sv.Here != "" && a.Session == sv.Here, sv.Here != "" && b.Session == sv.Here
		switch {
		case aHere != bHere:
			return aHere
		case aHere:
			return a.Activity > b.Activity
		}
		return a.Width*a.Height > b.Width*b.Height
	}
	best := -1
	for i, cl := range sv.Clients {
		if cl.Width > 0 && cl.Height > 0 && (best < 0 || better(cl, sv.Clients[best])) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return sv.Clients[best].Width, sv.Clients[best].Height, true
}

// ClientNames are the names of the attached clients.
func (sv Survey) ClientNames() []string {
	names := make([]string, len(sv.Clients))
	for i, cl := range sv.Clients {
		names[i] = cl.Name
	}
	return names
}

// KillSession kills a session by id; a session already gone is not an error.
func (c *Client) KillSession(id string) error {
	_, err := c.Run("kill-session", "-t", id)
	if err != nil && (errors.Is(err, ErrNoServer) || strings.Contains(err.Error(), "can't find session")) {
		return nil
	}
	return err
}

// SwitchClient switches the current client (owt runs inside tmux) to a session.
func (c *Client) SwitchClient(target string) error {
	_, err := c.Run("switch-client", "-t", target)
	return err
}

// AttachArgv is the argv that attaches a terminal to a session; callers exec it.
func (c *Client) AttachArgv(target string) []string {
	argv := []string{c.Bin}
	if c.Socket != "" {
		argv = append(argv, "-S", c.Socket)
	}
	return append(argv, "attach-session", "-t", target)
}

// Pane describes a pane.
type Pane struct {
	ID         string
	SessionID  string
	PID        int
	Dead       bool
	DeadStatus int
	Command    string
	Path       string
	// StartCommand is the command the pane was started with.
	StartCommand string
}

// Panes lists every pane of the server in one call.
func (c *Client) Panes() ([]Pane, error) {
	fields := []string{"#{pane_id}", "#{session_id}", "#{pane_pid}", "#{pane_dead}", "#{pane_dead_status}", "#{pane_current_command}", "#{pane_current_path}", "#{pane_start_command}"}
	out, err := c.Run("list-panes", "-a", "-F", strings.Join(fields, fieldSep))
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ps []Pane
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) != len(fields) {
			continue
		}
		pid, _ := strconv.Atoi(f[2])
		ds, _ := strconv.Atoi(f[4])
		ps = append(ps, Pane{ID: f[0], SessionID: f[1], PID: pid, Dead: f[3] == "1", DeadStatus: ds, Command: f[5], Path: f[6], StartCommand: f[7]})
	}
	return ps, nil
}

// SessionOptions returns, for every session of the server, the values of
// the named user options (missing ones are ""), keyed by session id.
func (c *Client) SessionOptions(names ...string) (map[string]map[string]string, error) {
	fields := []string{"#{session_id}"}
	for _, n := range names {
		fields = append(fields, "#{"+n+"}")
	}
	out, err := c.Run("list-sessions", "-F", strings.Join(fields, fieldSep))
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res := map[string]map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) != len(fields) {
			continue
		}
		opts := map[string]string{}
		for i, n := range names {
			opts[n] = f[i+1]
		}
		res[f[0]] = opts
	}
	return res, nil
}

// SessionEnv returns one variable of a session's environment ("" when unset).
func (c *Client) SessionEnv(session, key string) (string, error) {
	out, err := c.Run("show-environment", "-t", session, key)
	if err != nil {
		if strings.Contains(err.Error(), "unknown variable") {
			return "", nil
		}
		return "", err
	}
	_, v, _ := strings.Cut(out, "=")
	return v, nil
}

// GlobalEnv returns one variable of the server's global environment,
// the one new panes start with; set is false when the server has none.
func (c *Client) GlobalEnv(key string) (value string, set bool, err error) {
	out, err := c.Run("show-environment", "-g", key)
	if err != nil {
		if strings.Contains(err.Error(), "unknown variable") {
			return "", false, nil
		}
		return "", false, err
	}
	k, v, found := strings.Cut(out, "=")
	if !found || k != key { // "-KEY": removed from the environment
		return "", false, nil
	}
	return v, true, nil
}

// Capture returns the visible text of a pane, wrapped lines joined.
func (c *Client) Capture(pane string) (string, error) {
	return c.Run("capture-pane", "-p", "-J", "-t", pane)
}

// CaptureLast returns the last n lines of a pane's visible text and history.
func (c *Client) CaptureLast(pane string, n int) (string, error) {
	return c.Run("capture-pane", "-p", "-J", "-S", "-"+strconv.Itoa(n), "-t", pane)
}

// SendLiteral types text into a pane exactly as written: send-keys -l, so
// words like "Enter" or "C-c" stay words.
func (c *Client) SendLiteral(pane, text string) error {
	_, err := c.Run("send-keys", "-t", pane, "-l", "--", text)
	return err
}

// SendKey sends one named key (Enter, Escape, C-c) to a pane.
func (c *Client) SendKey(pane, key string) error {
	_, err := c.Run("send-keys", "-t", pane, key)
	return err
}

// SendKeyTimes sends one named key n times (send-keys -N).
func (c *Client) SendKeyTimes(pane, key string, n int) error {
	_, err := c.Run("send-keys", "-N", strconv.Itoa(n), "-t", pane, key)
	return err
}

// Paste loads text into a private buffer through stdin (never argv) and
// pastes it into the pane with bracketed-paste markers when the program in
// the pane asked for them, then deletes the buffer.
func (c *Client) Paste(pane, text string) error {
	buf := fmt.Sprintf("owt-%d-%d", os.Getpid(), time.Now().UnixNano())
	if _, err := c.run([]byte(text), "load-buffer", "-b", buf, "-"); err != nil {
		return err
	}
	_, err := c.Run("paste-buffer", "-p", "-d", "-r", "-b", buf, "-t", pane)
	if err != nil {
		_, _ = c.Run("delete-buffer", "-b", buf)
	}
	return err
}

// SetOption sets a user option (@name) on a session, or globally when target is "".
func (c *Client) SetOption(target, name, value string) error {
	args := []string{"set-option", "-q"}
	if target == "" {
		args = append(args, "-g")
	} else {
		args = append(args, "-t", target)
	}
	_, err := c.Run(append(args, name, value)...)
	return err
}

// SetWindowOption sets an option of the window holding pane (by pane id).
func (c *Client) SetWindowOption(pane, name, value string) error {
	_, err := c.Run("set-option", "-q", "-w", "-t", pane, name, value)
	return err
}

// UnsetOption removes a user option.
func (c *Client) UnsetOption(target, name string) error {
	args := []string{"set-option", "-q", "-u"}
	if target == "" {
		args = append(args, "-g")
	} else {
		args = append(args, "-t", target)
	}
	_, err := c.Run(append(args, name)...)
	return err
}

// ShowOption returns a user option's value ("" when unset).
func (c *Client) ShowOption(target, name string) (string, error) {
	args := []string{"show-options", "-q", "-v"}
	if target == "" {
		args = append(args, "-g")
	} else {
		args = append(args, "-t", target)
	}
	return c.Run(append(args, name)...)
}

// SetEnv sets a variable in a session's environment (for new panes).
func (c *Client) SetEnv(session, key, value string) error {
	_, err := c.Run("set-environment", "-t", session, key, value)
	return err
}

// RefreshStatus redraws the status line of every attached client: one call
// to list them, one call to refresh them all.
func (c *Client) RefreshStatus() error {
	out, err := c.Run("list-clients", "-F", "#{client_name}")
	if err != nil {
		if errors.Is(err, ErrNoServer) {
			return nil
		}
		return err
	}
	return c.RefreshClients(strings.Split(out, "\n"))
}

// RefreshClients redraws the status line of the named clients in one call.
func (c *Client) RefreshClients(names []string) error {
	var cmds [][]string
	for _, name := range names {
		if name != "" {
			cmds = append(cmds, []string{"refresh-client", "-S", "-t", name})
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := c.RunBatch(cmds...)
	return err
}

// SetOptions sets several user options on one target ("" = global) in one call.
func (c *Client) SetOptions(target string, opts map[string]string) error {
	cmds := setOptionCommands(target, opts)
	if len(cmds) == 0 {
		return nil
	}
	_, err := c.RunBatch(cmds...)
	return err
}

// setOptionCommands are the set-option commands of SetOptions.
func setOptionCommands(target string, opts map[string]string) [][]string {
	var cmds [][]string
	for _, k := range sortedKeys(opts) {
		cmd := []string{"set-option", "-q"}
		if target == "" {
			cmd = append(cmd, "-g")
		} else {
			cmd = append(cmd, "-t", target)
		}
		cmds = append(cmds, append(cmd, k, opts[k]))
	}
	return cmds
}

// Display returns a format expanded in the context of target ("" = current).
func (c *Client) Display(target, format string) (string, error) {
	args := []string{"display-message", "-p"}
	if target != "" {
		args = append(args, "-t", target)
	}
	return c.Run(append(args, format)...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// serverFormat expands to what tells one run of a tmux server from the
// next on the same socket: its pid and start time.
const serverFormat = "#{pid}:#{start_time}"

// hostname is read once: every listed session carries the identity.
var hostname = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	return host
})

func serverIdentity(expanded string) string {
	return hostname() + ":" + expanded
}

// ServerIdentity returns the identity of the running server: host, pid
// and start time. Session and pane ids are only comparable between two
// moments of the same identity.
func (c *Client) ServerIdentity() (string, error) {
	out, err := c.Run("display-message", "-p", serverFormat)
	if err != nil {
		return "", err
	}
	return serverIdentity(strings.TrimSpace(out)), nil
}

// RespawnPane kills what runs in pane (an id, %N) and starts argv there
// (execvp, no shell: two or more words), in dir with env added: the pane
// keeps its id, its window and the session's other windows. It is
// disarmed (WhenPaneDies) first.
func (c *Client) RespawnPane(pane, dir string, env map[string]string, argv []string) error {
	if !strings.HasPrefix(pane, "%") {
		return fmt.Errorf("respawn pane %q: not a pane id", pane)
	}
	args := []string{"respawn-pane", "-k", "-t", pane}
	if dir != "" {
		args = append(args, "-c", FormatLiteral(dir)) // tmux expands formats in -c
	}
	for _, k := range sortedKeys(env) {
		args = append(args, "-e", k+"="+env[k])
	}
	args = append(args, "--")
	// What WhenPaneDies armed was for the process killed here.
	_, err := c.RunBatch(append(disarm(pane), append(args, argv...))...)
	return err
}
