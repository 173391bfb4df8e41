// Package config loads owt's layered TOML configuration:
// built-in defaults < $XDG_CONFIG_HOME/owt/config.toml < <repo>/.owt.toml.
//
// Every layer is decoded strictly: a key owt does not know, or a value of
// the wrong type, is an error that names the file and the key, because a
// silently ignored typo in a config file is worse than a loud one.
package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/adrg/xdg"

	setuppaths "github.com/owt-tmux/owt/internal/setup" // the test file has a setup of its own
)

// RepoFile is the per-repository config file name, at the repo root.
const RepoFile = ".owt.toml"

// Config is the merged configuration.
type Config struct {
	Worktree Worktree        `toml:"worktree"`
	Setup    Setup           `toml:"setup"`
	Agent    Agent           `toml:"agent"`
	Status   Status          `toml:"status"`
	Notify   Notify          `toml:"notify"`
	Tmux     Tmux            `toml:"tmux"`
	Tools    map[string]Tool `toml:"tools,omitempty"`
	// Checks are the repo's own checks, run by owt in an agent's worktree
	// when it turns idle on a new tree (the checks_failed reaction).
	Checks Checks `toml:"checks"`
	// PR tunes owt pr and the polling of open pull requests.
	PR PR `toml:"pr"`
	// Reactions configure each reaction source by name (ReactionNames).
	Reactions map[string]Reaction `toml:"reactions,omitempty"`
	// MCP tunes owt mcp, the peers server every agent's tool starts.
	MCP MCP `toml:"mcp"`
	// Memory tunes the repository's memory (owt memory).
	Memory Memory `toml:"memory"`
	// Project names the project's own commands for the session protocol
	// of every agent's first prompt (detected when empty).
	Project Project `toml:"project"`
	// Templates are the user's task templates, and overrides of the
	// built-in ones' defaults, by name.
	Templates map[string]Template `toml:"templates,omitempty"`
	// Prices are the dollars per million tokens of each model, by model
	// name, for the cost owt shows beside the tokens (prices.go).
	Prices map[string]Price `toml:"prices,omitempty"`
	// Usage tunes how the monitor reads the agents' tokens.
	Usage Usage `toml:"usage"`
	// Review is the AI review gate before a merge or ship.
	Review Review `toml:"review"`
	// Run are defaults of every run (a plan's own [run] says otherwise).
	Run Run `toml:"run"`
	// Log tunes owt's log, owt.log. Every repository shares the file, so
	// only the user's own config file may set it.
	Log Log `toml:"log"`
	// Hosts are the machines agents may run on over ssh ([hosts.NAME]),
	// by name. Only the user's own config file may set them.
	Hosts map[string]Host `toml:"hosts,omitempty"`
}

// Usage tunes the monitor's reading of the agents' session files.
type Usage struct {
	// Interval is how often the monitor reads what they gained.
	Interval Duration `toml:"interval"`
	// WarnAt is the share of a usage window (5-hour, weekly), in percent,
	// at which an agent's window is told once per reset period through
	// [notify] (status "usage"); 0 is never.
	WarnAt float64 `toml:"warn_at"`
}

// Log tunes owt.log.
type Log struct {
	// Format is "text" (a line per entry: time, pid, who, message) or
	// "json" (a JSON object per line, with time, level, repo, agent and
	// event).
	Format string `toml:"format"`
}

// LogFormats are the formats [log] format accepts.
var LogFormats = []string{"text", "json"}

// LogFormat is the user config's [log] format ("" when it sets none): a
// config with problems still gives its format when that one is valid.
// It is owt.log's format source (owtlog.SetFormatSource).
func LogFormat() string {
	cfg, _ := Load("")
	return cfg.Log.Format
}

// Review tunes the AI review gate: a headless run of a tool over a
// branch's diff before it lands (owt merge/ship --review).
type Review struct {
	// Enabled reviews before every merge and ship, from every face.
	Enabled bool `toml:"enabled"`
	// Tool reviews; "" is the agent's own tool, else [agent] tool.
	Tool string `toml:"tool"`
	// Timeout bounds one review (both of its attempts): the tool is
	// ended at it and the review is unavailable.
	Timeout Duration `toml:"timeout"`
}

// Run are defaults of every task graph run.
type Run struct {
	// OnConflict is what a landing that conflicts leads to:
	// OnConflictNeedsYou ("" reads as it) or OnConflictResolve.
	OnConflict string `toml:"on_conflict"`
}

// What a run's landing conflict leads to ([run] on_conflict).
const (
	OnConflictNeedsYou = "needs_you" // nothing changes; the user decides
	OnConflictResolve  = "resolve"   // once, the agent resolves it in its worktree (owt resolve)
)

// Memory tunes owt memory: what a new agent is given, and how often the
// monitor consolidates.
type Memory struct {
	// InjectTokens bounds the facts written for a new agent (about 4
	// characters a token); 0 gives none.
	InjectTokens int `toml:"inject_tokens"`
	// ConsolidateEvery is how often the monitor consolidates a
	// repository's memory while its agents are idle; 0 never.
	ConsolidateEvery Duration `toml:"consolidate_every"`
	// StaleAfter is how long a worktree may sit idle before a
	// consolidation reports it stale.
	StaleAfter Duration `toml:"stale_after"`
}

// MCP tunes owt mcp: whether agents get it, how many agents one agent may
// spawn, and the loop guard on messages between agents.
type MCP struct {
	// Enabled registers owt mcp with every agent's tool ([tools.X] mcp =
	// false turns it off for one tool).
	Enabled bool `toml:"enabled"`
	// MaxSpawned bounds the live agents one agent has spawned.
	MaxSpawned int `toml:"max_spawned"`
	// SpawnDepth is how deep spawning goes: 1 lets the agents the user
	// started spawn executors, which cannot spawn in turn.
	SpawnDepth int `toml:"spawn_depth"`
	// MessageLimit messages per MessageWindow from one agent to any one
	// peer; past it a message is refused and the pair needs the user.
	MessageLimit  int      `toml:"message_limit"`
	MessageWindow Duration `toml:"message_window"`
}

// Checks lists check commands: each an argv (no shell), run in order.
type Checks struct {
	Commands [][]string `toml:"commands"`
	// Timeout bounds one command.
	Timeout Duration `toml:"timeout"`
}

// PR tunes pull requests.
type PR struct {
	// Remote is the git remote branches are pushed to; empty: the base
	// branch's remote, else "origin", else the only remote.
	Remote string `toml:"remote"`
	// PollInterval is the time between two polls of one open pull request
	// (one gh call each); errors back off from it.
	PollInterval Duration `toml:"poll_interval"`
}

// Reaction configures one reaction source.
type Reaction struct {
	// Action is "send" (the failure goes to the agent), "notify" (to you
	// only) or "off".
	Action string `toml:"action"`
	// MaxAttempts is how many messages go to the agent before the
	// reaction needs you.
	MaxAttempts int `toml:"max_attempts"`
	// Message is a text/template for the message; {{.Failure}} is the
	// failure text, {{.Name}} the agent, {{.Reaction}} the reaction.
	Message string `toml:"message"`
}

// Reaction names.
const (
	ChecksFailed     = "checks_failed"
	CIFailed         = "ci_failed"
	ChangesRequested = "changes_requested"
	Conflict         = "conflict"
)

// ReactionNames are the reaction sources owt has.
var ReactionNames = []string{ChecksFailed, CIFailed, ChangesRequested, Conflict}

// ReactionActions are the actions a reaction takes.
var ReactionActions = []string{"send", "notify", "off"}

func defaultReactions() map[string]Reaction {
	out := map[string]Reaction{}
	for _, n := range ReactionNames {
		out[n] = Reaction{Action: "send", MaxAttempts: 3}
	}
	return out
}

// Tmux tunes the sessions owt makes.
type Tmux struct {
	// Size is the size a new agent session is made at: "auto" (the client
	// owt is run from, else the largest attached client, else 200x50) or
	// "WIDTHxHEIGHT". An agent draws for its session's size until someone
	// attaches; tmux's own default, 80x24, wraps most agents' footers.
	// While a client is attached anywhere, tmux's window-size option
	// ("latest" by default) decides instead, which is the user's terminal.
	Size string `toml:"size"`
}

// ParseSize reads "WIDTHxHEIGHT"; ok is false for "auto" or a bad value.
func ParseSize(s string) (w, h int, ok bool) {
	if _, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || fmt.Sprintf("%dx%d", w, h) != s {
		return 0, 0, false
	}
	return w, h, w >= 20 && h >= 5 && w <= 1000 && h <= 1000
}

// Worktree says where worktrees go and what they get from the main checkout.
type Worktree struct {
	// Dir is the worktree path; {repo} and {name} are replaced, a relative
	// path is taken from the repo root, ~ is the home directory.
	Dir string `toml:"dir"`
	// Copy lists glob patterns of untracked files copied into a new worktree.
	// A pattern without a slash matches a file name at any depth.
	Copy []string `toml:"copy"`
	// Link lists paths (relative to the repo root) symlinked into a new worktree.
	Link []string `toml:"link"`
	// PortBase is the first port handed out; each worktree gets a block of PortBlock.
	PortBase  int `toml:"port_base"`
	PortBlock int `toml:"port_block"`
}

// Setup controls dependency installation in a new worktree.
type Setup struct {
	// Install runs the detected package manager's install.
	Install bool `toml:"install"`
	// Commands run after the install, each through "sh -c" in the worktree:
	// they are the user's own shell code, never combined with other input.
	Commands []string `toml:"commands"`
}

// Agent chooses the default tool.
type Agent struct {
	// Tool is a tool name or "auto" (the first installed, in a fixed order).
	Tool string `toml:"tool"`
	// AutoApprove adds the tool's skip-permission flags. Off by default.
	AutoApprove bool `toml:"auto_approve"`
	// ReadyTimeout bounds the wait for a paste-mode tool (aider, amp) to
	// show its prompt before the task is pasted.
	ReadyTimeout Duration `toml:"ready_timeout"`
	// SendTimeout bounds each wait of owt send: for an agent that is still
	// starting to be ready, for the typed text to show, for Enter to take.
	SendTimeout Duration `toml:"send_timeout"`
}

// Status tunes status detection.
type Status struct {
	// StillAfter is how long a "working" agent's pane must stay unchanged,
	// with its input prompt showing, before owt calls it idle (Esc fires
	// no hook).
	StillAfter Duration `toml:"still_after"`
}

// Notify says when and how owt tells the user that an agent changed status.
type Notify struct {
	// On lists the statuses whose arrival notifies: "waiting", "idle",
	// "exited", "needs_you" for a run's task that needs the user
	// (failed, asking, blocked), and "usage" for a usage window past [usage]
	// warn_at. Empty turns notifications off. It is
	// also the filter of every channel that sets no on of its own.
	On []string `toml:"on"`
	// Desktop is the desktop's notices (notify-send, macOS). The old
	// form desktop = true (a bool) is kept: it reads as enabled.
	Desktop NotifyDesktop `toml:"desktop"`
	// Command is run (argv, no shell) on each notification with OWT_NAME,
	// OWT_STATUS, OWT_EVENT, OWT_TEXT, OWT_RUN, OWT_TASK, OWT_REPO and
	// OWT_PATH in its environment.
	Command []string `toml:"command"`
	// Terminal is the notices the user's own terminal shows (OSC 9 and
	// OSC 777), written to each client of the tmux server.
	Terminal NotifyTerminal `toml:"terminal"`
	// Webhook is a JSON POST of each notice.
	Webhook NotifyWebhook `toml:"webhook"`
	// Ntfy publishes each notice to a ntfy topic (a phone's push), with
	// buttons that answer a prompt when Reply is on. Only the user's own
	// config file may set it: a repository must not choose where notices
	// (and the tokens that answer prompts) go.
	Ntfy NotifyNtfy `toml:"ntfy"`
}

// NotifyNtfy is [notify.ntfy].
type NotifyNtfy struct {
	// URL is the ntfy server's root; "" is https://ntfy.sh.
	URL string `toml:"url"`
	// Topic is where notices go; "" turns the channel off.
	Topic string `toml:"topic"`
	// TokenEnv names the environment variable (of owt's monitor) that
	// holds an access token; "" sends none. The token itself is never in
	// a config file, a log line or owt config show.
	TokenEnv string `toml:"token_env"`
	// Reply puts the prompt's choices on a notice as buttons; owt's
	// monitor follows ReplyTopic and answers the prompt with the choice.
	Reply bool `toml:"reply"`
	// ReplyTopic is where the buttons publish; "" is Topic + "-reply".
	ReplyTopic string `toml:"reply_topic"`
	// On, when set, replaces [notify] on for this channel.
	On []string `toml:"on"`
}

// ReplyTopicOr is the reply topic: ReplyTopic, or Topic + "-reply".
func (n NotifyNtfy) ReplyTopicOr() string {
	if n.ReplyTopic != "" {
		return n.ReplyTopic
	}
	return n.Topic + "-reply"
}

// NotifyDesktop is [notify.desktop].
type NotifyDesktop struct {
	// Enabled shows each notice on the desktop: notify-send on Linux,
	// terminal-notifier or osascript on macOS.
	Enabled bool `toml:"enabled"`
	// On, when set, replaces [notify] on for this channel.
	On []string `toml:"on"`
}

// SetBool takes the old form desktop = true as enabled = true.
func (d *NotifyDesktop) SetBool(b bool) { d.Enabled = b }

// NotifyTerminal is [notify.terminal].
type NotifyTerminal struct {
	// OSC is which escape sequence tells the terminal: "auto" (the one
	// the client's terminal is known to show, none when unknown), "9",
	// "777", "99" (kitty's own) or "off".
	OSC string `toml:"osc"`
	// On, when set, replaces [notify] on for this channel.
	On []string `toml:"on"`
}

// NotifyWebhook is [notify.webhook].
type NotifyWebhook struct {
	// URL receives a POST of each notice; "" turns the channel off.
	URL string `toml:"url"`
	// Format is the body: "json" (owt's own), "slack" or "discord"
	// (what their incoming webhooks take).
	Format string `toml:"format"`
	// On, when set, replaces [notify] on for this channel.
	On []string `toml:"on"`
}

// NotifyOSC are the values [notify.terminal] osc accepts.
var NotifyOSC = []string{"auto", "9", "777", "99", "off"}

// WebhookFormats are the values [notify.webhook] format accepts.
var WebhookFormats = []string{"json", "slack", "discord"}

// boolTable is a table a bare true or false may stand for (an older
// form of the key, kept).
type boolTable interface{ SetBool(bool) }

// NotifyStatuses are the statuses [notify] on accepts.
var NotifyStatuses = []string{"waiting", "limited", "idle", "exited", "needs_you", "usage"}

// Tool adds a tool or overrides fields of a built-in one. Empty fields keep
// the built-in value.
type Tool struct {
	Command    []string `toml:"command,omitempty"`
	Prompt     string   `toml:"prompt,omitempty"` // "arg", "paste" or "none"
	PromptFlag string   `toml:"prompt_flag,omitempty"`
	Plan       []string `toml:"plan,omitempty"`
	Approve    []string `toml:"approve,omitempty"`
	Headless   []string `toml:"headless,omitempty"`
	Ready      string   `toml:"ready,omitempty"`
	Working    string   `toml:"working,omitempty"`
	Waiting    string   `toml:"waiting,omitempty"`
	Idle       string   `toml:"idle,omitempty"`
	// StatusBar matches the tool's own status-bar lines (footers, model and
	// context lines), which are ignored when looking for Working and Waiting.
	StatusBar   string `toml:"status_bar,omitempty"`
	InstallHint string `toml:"install_hint,omitempty"`
	// MCP = false keeps owt mcp away from this tool ([mcp] enabled
	// turns it off for all); unset follows [mcp].
	MCP *bool `toml:"mcp,omitempty"`
}

// Duration is a time.Duration written as "5s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses "5s", "1m30s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration (like \"5s\"): %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back as text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Defaults returns the built-in configuration.
func Defaults() Config {
	return Config{
		Worktree: Worktree{
			Dir:       "../{repo}.worktrees/{name}",
			Copy:      []string{".env", ".env.*", ".envrc"},
			Link:      []string{},
			PortBase:  20000,
			PortBlock: 10,
		},
		Setup:  Setup{Install: true, Commands: []string{}},
		Agent:  Agent{Tool: "auto", ReadyTimeout: Duration{90 * time.Second}, SendTimeout: Duration{30 * time.Second}},
		Status: Status{StillAfter: Duration{5 * time.Second}},
		Notify: Notify{On: append([]string(nil), NotifyStatuses...), Command: []string{},
			Terminal: NotifyTerminal{OSC: "auto"}, Webhook: NotifyWebhook{Format: "json"}},
		Tmux:   Tmux{Size: "auto"},
		Tools:  map[string]Tool{},
		Checks: Checks{Commands: [][]string{}, Timeout: Duration{15 * time.Minute}},
		PR:     PR{PollInterval: Duration{60 * time.Second}},

		Reactions: defaultReactions(),
		Memory:    Memory{InjectTokens: 1500, ConsolidateEvery: Duration{6 * time.Hour}, StaleAfter: Duration{72 * time.Hour}},
		MCP:       MCP{Enabled: true, MaxSpawned: 5, SpawnDepth: 1, MessageLimit: 10, MessageWindow: Duration{10 * time.Minute}},

		Project:   Project{Test: []string{}, Lint: []string{}, Dev: []string{}},
		Log:       Log{Format: "text"},
		Templates: map[string]Template{},
		Prices:    DefaultPrices(),
		Usage:     Usage{Interval: Duration{15 * time.Second}},
		Review:    Review{Timeout: Duration{5 * time.Minute}},
		Run:       Run{OnConflict: OnConflictNeedsYou},
	}
}

// UserFile is the path of the user's config file.
func UserFile() string {
	return filepath.Join(xdg.ConfigHome, "owt", "config.toml")
}

// Problem is one thing wrong in a config file.
type Problem struct {
	File string
	Key  string
	Msg  string
}

func (p Problem) Error() string {
	if p.File == "" { // not located yet (see Locate)
		return fmt.Sprintf("%s: %s", p.Key, p.Msg)
	}
	if p.Key == "" {
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", p.File, p.Key, p.Msg)
}

// Problems is every problem found while loading.
type Problems []Problem

func (ps Problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

// Load merges the defaults, the user file and, when repoRoot is not empty,
// the repo's .owt.toml. Missing files are fine. It returns Problems when
// any layer has unknown or mistyped keys, or a value out of range, each
// naming the file that set the key.
func Load(repoRoot string) (Config, error) {
	cfg := Defaults()
	var problems Problems
	for _, f := range layerFiles(repoRoot) {
		ps, err := apply(&cfg, f)
		if err != nil {
			return cfg, err
		}
		problems = append(problems, ps...)
	}
	problems = append(problems, Locate(repoRoot, validate(cfg))...)
	if len(problems) > 0 {
		return cfg, problems
	}
	return cfg, nil
}

// layerFiles are the config files in the order they apply.
func layerFiles(repoRoot string) []string {
	files := []string{UserFile()}
	if repoRoot != "" {
		files = append(files, filepath.Join(repoRoot, RepoFile))
	}
	return files
}

// Locate names, in each problem without a file, the file that set its key
// (the last layer that defines it or the table around it): checks on the
// merged config, like a tool's profile, know the key but not the file.
func Locate(repoRoot string, ps Problems) Problems {
	out := make(Problems, len(ps))
	for i, p := range ps {
		if p.File == "" {
			p.File = fileSetting(repoRoot, p.Key)
		}
		out[i] = p
	}
	return out
}

// fileSetting is the last config file that defines key or a table that
// holds it; "config" when none does.
func fileSetting(repoRoot, key string) string {
	files := layerFiles(repoRoot)
	for k := strings.Split(key, "."); len(k) > 0; k = k[:len(k)-1] {
		for i := len(files) - 1; i >= 0; i-- {
			var doc map[string]any
			md, err := toml.DecodeFile(files[i], &doc)
			if err == nil && md.IsDefined(k...) {
				return files[i]
			}
		}
	}
	return "config"
}

// apply decodes one file over cfg. Tools merge field by field so a repo file
// can override one field of a tool the user file defined. Each key is
// decoded on its own, so every mistyped key and every unknown key of the
// file is reported, not only the first problem.
func apply(cfg *Config, file string) (Problems, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", file, err)
	}
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return Problems{syntaxProblem(file, err)}, nil // nothing past a syntax error can be read
	}
	d := layerDecoder{md: md, file: file, order: map[string]int{}}
	for i, k := range md.Keys() {
		for n := 1; n <= len(k); n++ { // a table named only by its subtables ([tools.x]) takes their place
			if _, seen := d.order[k[:n].String()]; !seen {
				d.order[k[:n].String()] = i
			}
		}
	}
	if _, ok := top["log"]; ok && file != UserFile() {
		// One owt.log serves every repository: a repository cannot choose
		// its format for the others.
		d.problems = append(d.problems, Problem{File: file, Key: "log", Msg: "owt.log is shared by every repository: set [log] in your own " + UserFile()})
		delete(top, "log")
	}
	if _, ok := top["hosts"]; ok && file != UserFile() {
		// A repository must not send its agents, or its code, to a machine
		// the user did not name.
		d.problems = append(d.problems, Problem{File: file, Key: "hosts", Msg: "hosts are the user's machines: set [hosts.NAME] in your own " + UserFile() + " (owt host add)"})
		delete(top, "hosts")
	}
	layer := *cfg
	layer.Tools = nil
	d.fields(top, reflect.ValueOf(&layer).Elem(), nil)
	if md.IsDefined("notify", "ntfy") && file != UserFile() {
		// The buttons of a ntfy notice answer prompts: a repository must
		// not send them, or the notices, to a server the user did not name.
		d.problems = append(d.problems, Problem{File: file, Key: "notify.ntfy", Msg: "where notices and their answers go is yours to say: set [notify.ntfy] in your own " + UserFile()})
		layer.Notify.Ntfy = cfg.Notify.Ntfy
	}
	tools := cfg.Tools
	*cfg = layer
	cfg.Tools = mergeTools(tools, layer.Tools)
	return d.problems, nil
}

// layerDecoder decodes one config file key by key into Config's fields.
type layerDecoder struct {
	md       toml.MetaData
	file     string
	order    map[string]int // key → its place in the file, to report in file order
	problems Problems
}

// fields decodes each key of a table into the field of dst (a struct)
// whose toml tag names it.
func (d *layerDecoder) fields(table map[string]toml.Primitive, dst reflect.Value, path toml.Key) {
	at := func(k string) toml.Key { return append(append(toml.Key{}, path...), k) }
	for _, k := range d.inFileOrder(table, path) {
		f, ok := fieldByTag(dst, k)
		if !ok {
			d.problems = append(d.problems, Problem{File: d.file, Key: at(k).String(), Msg: "unknown key"})
			continue
		}
		d.value(table[k], f, at(k))
	}
}

// inFileOrder is the keys of the table at path in the order the file has them.
func (d *layerDecoder) inFileOrder(table map[string]toml.Primitive, path toml.Key) []string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	place := func(k string) int { return d.order[append(append(toml.Key{}, path...), k).String()] }
	sort.Slice(keys, func(i, j int) bool { return place(keys[i]) < place(keys[j]) })
	return keys
}

// value decodes one value into f: tables key by key, anything else whole.
func (d *layerDecoder) value(v toml.Primitive, f reflect.Value, path toml.Key) {
	_, isText := f.Addr().Interface().(encoding.TextUnmarshaler)
	switch {
	case f.Kind() == reflect.Struct && !isText && d.md.Type(path...) == "Bool" && isBoolTable(f):
		var b bool
		if err := d.md.PrimitiveDecode(v, &b); err != nil {
			d.problems = append(d.problems, typeProblem(d.file, path.String(), err))
			return
		}
		f.Addr().Interface().(boolTable).SetBool(b)
	case f.Kind() == reflect.Struct && !isText:
		if sub, ok := d.table(v, path); ok {
			d.fields(sub, f, path)
		}
	case f.Kind() == reflect.Map: // [tools.NAME]
		named, ok := d.table(v, path)
		if !ok {
			return
		}
		if f.IsNil() {
			f.Set(reflect.MakeMap(f.Type()))
		}
		for _, name := range d.inFileOrder(named, path) {
			p := named[name]
			elem := reflect.New(f.Type().Elem()).Elem()
			if prev := f.MapIndex(reflect.ValueOf(name)); prev.IsValid() {
				elem.Set(prev)
			}
			d.value(p, elem, append(append(toml.Key{}, path...), name))
			f.SetMapIndex(reflect.ValueOf(name), elem)
		}
	default:
		if f.Kind() == reflect.Slice {
			f.Set(reflect.Zero(f.Type())) // never write into the array of the layer below
		}
		if err := d.md.PrimitiveDecode(v, f.Addr().Interface()); err != nil {
			d.problems = append(d.problems, typeProblem(d.file, path.String(), err))
		}
	}
}

func isBoolTable(f reflect.Value) bool {
	_, ok := f.Addr().Interface().(boolTable)
	return ok
}

// table decodes v, the value at path, as a table of values still to decode.
func (d *layerDecoder) table(v toml.Primitive, path toml.Key) (map[string]toml.Primitive, bool) {
	if typ := d.md.Type(path...); typ != "" && typ != "Hash" { // the toml package lets "x = 3" decode as an empty table ("": a table only named by its subtables)
		d.problems = append(d.problems, Problem{File: d.file, Key: path.String(), Msg: "must be a table, not " + tomlTypeWord(typ)})
		return nil, false
	}
	var t map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(v, &t); err != nil {
		d.problems = append(d.problems, typeProblem(d.file, path.String(), err))
		return nil, false
	}
	return t, true
}

// tomlTypeWord says a TOML type name (MetaData.Type) in words.
func tomlTypeWord(typ string) string {
	switch typ {
	case "Integer":
		return "an integer"
	case "Float":
		return "a number"
	case "Bool":
		return "true or false"
	case "String":
		return "a string"
	case "Array", "ArrayHash":
		return "an array"
	}
	return "a " + strings.ToLower(typ)
}

// fieldByTag is the field of struct v whose toml tag is name.
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == name && tag != "-" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// syntaxProblem is a file that is not TOML.
func syntaxProblem(file string, err error) Problem {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return Problem{File: fmt.Sprintf("%s:%d", file, perr.Position.Line), Key: perr.LastKey, Msg: perr.Message}
	}
	return Problem{File: file, Msg: err.Error()}
}

// tomlTypeError is how the toml package words a value of the wrong type:
// toml: line 2 (last key "worktree.port_base"): incompatible types: …
var tomlTypeError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "(.*?)"\): (.*)$`) })

// typeProblem turns a decode error of key into a problem naming file,
// line and key once, in words.
func typeProblem(file, key string, err error) Problem {
	where := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", file, line)
		}
		return file
	}
	var perr toml.ParseError
	if errors.As(err, &perr) { // a value's own check failed (a duration, say)
		return Problem{File: where(perr.Position.Line), Key: key, Msg: perr.Message}
	}
	m := tomlTypeError().FindStringSubmatch(err.Error())
	if m == nil {
		return Problem{File: file, Key: key, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	if key == "" {
		key = m[2]
	}
	return Problem{File: where(line), Key: key, Msg: typeWords(m[3])}
}

var tomlTable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`expected table but found (\w+)`) })

var tomlTypes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`TOML value has type (\w+); destination has type (\w+)`)
})

// typeWords says "must be an integer, not a string" for the toml
// package's "incompatible types: TOML value has type string; …".
func typeWords(msg string) string {
	if m := tomlTable().FindStringSubmatch(msg); m != nil {
		return "must be a table, not " + article(m[1])
	}
	m := tomlTypes().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	want := map[string]string{"slice": "an array", "map": "a table", "integer": "an integer", "float": "a number", "boolean": "true or false", "string": "a string"}[m[2]]
	if want == "" {
		want = "a " + m[2]
	}
	return fmt.Sprintf("must be %s, not %s", want, article(m[1]))
}

// article names a TOML value's Go type the way a config file says it.
func article(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map"):
		return "a table"
	case strings.HasPrefix(goType, "time"):
		return "a date"
	}
	return goType
}

func mergeTools(base, over map[string]Tool) map[string]Tool {
	out := make(map[string]Tool, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = MergeTool(out[k], v)
	}
	return out
}

// MergeTool returns base with every non-empty field of over applied.
func MergeTool(base, over Tool) Tool {
	if len(over.Command) > 0 {
		base.Command = over.Command
	}
	if over.Prompt != "" {
		base.Prompt = over.Prompt
	}
	if over.PromptFlag != "" {
		base.PromptFlag = over.PromptFlag
	}
	if over.Plan != nil {
		base.Plan = over.Plan
	}
	if over.Approve != nil {
		base.Approve = over.Approve
	}
	if len(over.Headless) > 0 {
		base.Headless = over.Headless
	}
	if over.Ready != "" {
		base.Ready = over.Ready
	}
	if over.Working != "" {
		base.Working = over.Working
	}
	if over.Waiting != "" {
		base.Waiting = over.Waiting
	}
	if over.Idle != "" {
		base.Idle = over.Idle
	}
	if over.StatusBar != "" {
		base.StatusBar = over.StatusBar
	}
	if over.InstallHint != "" {
		base.InstallHint = over.InstallHint
	}
	if over.MCP != nil {
		base.MCP = over.MCP
	}
	return base
}

// validate checks values on the merged config; Load names the files.
func validate(cfg Config) Problems {
	var ps Problems
	where := ""
	if cfg.Worktree.Dir == "" || !strings.Contains(cfg.Worktree.Dir, "{name}") {
		ps = append(ps, Problem{File: where, Key: "worktree.dir", Msg: "must contain {name}"})
	}
	if cfg.Worktree.PortBase < 1024 || cfg.Worktree.PortBase > 65000 {
		ps = append(ps, Problem{File: where, Key: "worktree.port_base", Msg: "must be between 1024 and 65000"})
	}
	if cfg.Worktree.PortBlock < 1 || cfg.Worktree.PortBlock > 1000 {
		ps = append(ps, Problem{File: where, Key: "worktree.port_block", Msg: "must be between 1 and 1000"})
	}
	if cfg.Status.StillAfter.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "status.still_after", Msg: "must be more than 0s"})
	}
	for _, s := range cfg.Notify.On {
		if !contains(NotifyStatuses, s) {
			ps = append(ps, Problem{File: where, Key: "notify.on", Msg: fmt.Sprintf("%q is not one of %s", s, strings.Join(NotifyStatuses, ", "))})
		}
	}
	for _, ch := range []struct {
		key string
		on  []string
	}{{"notify.desktop.on", cfg.Notify.Desktop.On}, {"notify.terminal.on", cfg.Notify.Terminal.On}, {"notify.webhook.on", cfg.Notify.Webhook.On}, {"notify.ntfy.on", cfg.Notify.Ntfy.On}} {
		for _, s := range ch.on {
			if !contains(NotifyStatuses, s) {
				ps = append(ps, Problem{File: where, Key: ch.key, Msg: fmt.Sprintf("%q is not one of %s", s, strings.Join(NotifyStatuses, ", "))})
			}
		}
	}
	if !contains(NotifyOSC, cfg.Notify.Terminal.OSC) {
		ps = append(ps, Problem{File: where, Key: "notify.terminal.osc", Msg: fmt.Sprintf("%q is not one of %s", cfg.Notify.Terminal.OSC, strings.Join(NotifyOSC, ", "))})
	}
	if !contains(WebhookFormats, cfg.Notify.Webhook.Format) {
		ps = append(ps, Problem{File: where, Key: "notify.webhook.format", Msg: fmt.Sprintf("%q is not one of %s", cfg.Notify.Webhook.Format, strings.Join(WebhookFormats, ", "))})
	}
	if u := cfg.Notify.Webhook.URL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		ps = append(ps, Problem{File: where, Key: "notify.webhook.url", Msg: "must be an http:// or https:// URL"})
	}
	ps = append(ps, validateNtfy(where, cfg.Notify.Ntfy)...)
	if len(cfg.Notify.Command) > 0 && strings.TrimSpace(cfg.Notify.Command[0]) == "" {
		ps = append(ps, Problem{File: where, Key: "notify.command", Msg: "the first element must name a program"})
	}
	if !contains(LogFormats, cfg.Log.Format) {
		ps = append(ps, Problem{File: where, Key: "log.format", Msg: fmt.Sprintf("%q is not one of %s", cfg.Log.Format, strings.Join(LogFormats, ", "))})
	}
	if cfg.Agent.ReadyTimeout.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "agent.ready_timeout", Msg: "must be more than 0 (like \"90s\")"})
	}
	if _, _, ok := ParseSize(cfg.Tmux.Size); !ok && cfg.Tmux.Size != "auto" {
		ps = append(ps, Problem{File: where, Key: "tmux.size", Msg: fmt.Sprintf("must be \"auto\" or WIDTHxHEIGHT between 20x5 and 1000x1000, not %q", cfg.Tmux.Size)})
	}
	if cfg.Agent.SendTimeout.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "agent.send_timeout", Msg: "must be more than 0 (like \"30s\")"})
	}
	if cfg.Memory.InjectTokens < 0 {
		ps = append(ps, Problem{File: where, Key: "memory.inject_tokens", Msg: "must be 0 or more"})
	}
	if cfg.Memory.ConsolidateEvery.Duration < 0 {
		ps = append(ps, Problem{File: where, Key: "memory.consolidate_every", Msg: "must be 0 (never) or more"})
	}
	if cfg.Memory.StaleAfter.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "memory.stale_after", Msg: "must be more than 0 (like \"72h\")"})
	}
	if cfg.MCP.MaxSpawned < 0 {
		ps = append(ps, Problem{File: where, Key: "mcp.max_spawned", Msg: "must be 0 or more"})
	}
	if cfg.MCP.SpawnDepth < 0 {
		ps = append(ps, Problem{File: where, Key: "mcp.spawn_depth", Msg: "must be 0 or more"})
	}
	if cfg.MCP.MessageLimit < 1 {
		ps = append(ps, Problem{File: where, Key: "mcp.message_limit", Msg: "must be 1 or more"})
	}
	if cfg.MCP.MessageWindow.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "mcp.message_window", Msg: "must be more than 0 (like \"10m\")"})
	}
	for _, l := range cfg.Worktree.Link {
		if _, err := setuppaths.CleanRel(l); err != nil { // owt new's own rule, so validate refuses what new would
			ps = append(ps, Problem{File: where, Key: "worktree.link", Msg: err.Error()})
		}
	}
	ps = append(ps, validateReactions(cfg)...)
	ps = append(ps, ValidateHosts(cfg)...)
	ps = append(ps, validateTemplates(cfg)...)
	ps = append(ps, validatePrices(cfg)...)
	if cfg.Usage.Interval.Duration < time.Second {
		ps = append(ps, Problem{File: where, Key: "usage.interval", Msg: "must be at least 1s (like \"15s\")"})
	}
	if w := cfg.Usage.WarnAt; w < 0 || w > 100 || w != w {
		ps = append(ps, Problem{File: where, Key: "usage.warn_at", Msg: "must be a percent from 0 (never) to 100 (like 80)"})
	}
	names := make([]string, 0, len(cfg.Tools))
	for n := range cfg.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := cfg.Tools[n]
		if !toolName().MatchString(n) {
			ps = append(ps, Problem{File: where, Key: "tools." + strconv.Quote(n), Msg: "a tool's name is letters, digits, '.', '_' and '-' (not first), at most 63: it is typed on command lines and completed by the shell"})
			continue
		}
		switch t.Prompt {
		case "", "arg", "paste", "none":
		default:
			ps = append(ps, Problem{File: where, Key: "tools." + n + ".prompt", Msg: fmt.Sprintf("must be \"arg\", \"paste\" or \"none\", not %q", t.Prompt)})
		}
	}
	return ps
}

// toolName is what a tool may be called ([tools.NAME]): it is typed on
// command lines (--tool NAME), completed by the shells and shown in columns.
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`) })

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Encode writes cfg as TOML.
func Encode(cfg Config) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(cfg); err != nil {
		return "", fmt.Errorf("encode config: %w", err)
	}
	return b.String(), nil
}

// validateReactions checks [checks], [pr] and [reactions.NAME].
func validateReactions(cfg Config) Problems {
	var ps Problems
	for i, argv := range cfg.Checks.Commands {
		if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
			ps = append(ps, Problem{Key: "checks.commands", Msg: fmt.Sprintf("command %d must name a program first", i+1)})
		}
	}
	if cfg.Checks.Timeout.Duration <= 0 {
		ps = append(ps, Problem{Key: "checks.timeout", Msg: "must be more than 0 (like \"15m\")"})
	}
	if oc := cfg.Run.OnConflict; oc != "" && oc != OnConflictNeedsYou && oc != OnConflictResolve {
		ps = append(ps, Problem{Key: "run.on_conflict", Msg: fmt.Sprintf("must be %q or %q, not %q", OnConflictNeedsYou, OnConflictResolve, oc)})
	}
	if cfg.PR.PollInterval.Duration < time.Second {
		ps = append(ps, Problem{Key: "pr.poll_interval", Msg: "must be at least 1s (like \"60s\")"})
	}
	if cfg.Review.Timeout.Duration <= 0 {
		ps = append(ps, Problem{Key: "review.timeout", Msg: "must be more than 0 (like \"5m\")"})
	}
	names := make([]string, 0, len(cfg.Reactions))
	for n := range cfg.Reactions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r, key := cfg.Reactions[n], "reactions."+n
		if !contains(ReactionNames, n) {
			ps = append(ps, Problem{Key: key, Msg: "unknown reaction (one of " + strings.Join(ReactionNames, ", ") + ")"})
			continue
		}
		if !contains(ReactionActions, r.Action) {
			ps = append(ps, Problem{Key: key + ".action", Msg: fmt.Sprintf("must be \"send\", \"notify\" or \"off\", not %q", r.Action)})
		}
		if r.MaxAttempts < 1 {
			ps = append(ps, Problem{Key: key + ".max_attempts", Msg: "must be 1 or more"})
		}
		if t, err := template.New(n).Parse(r.Message); err != nil {
			ps = append(ps, Problem{Key: key + ".message", Msg: "not a template: " + err.Error()})
		} else if err := t.Execute(io.Discard, MessageData{Reaction: n, Name: "agent", Failure: "failure", PR: 1, Base: "main"}); err != nil {
			ps = append(ps, Problem{Key: key + ".message", Msg: "the template fails: " + err.Error() + " (it has .Reaction, .Name, .Failure, .PR, .Base)"})
		}
	}
	return ps
}

// MessageData is what a reaction's message template is given.
type MessageData struct {
	Reaction string // the reaction's name
	Name     string // the agent
	Failure  string // the failure: command and output tail, check and log tail, comments, files
	PR       int    // the pull request's number, 0 when none
	Base     string // the branch it is compared with
}

// ntfyTopic is a topic ntfy takes: letters, digits, '-' and '_', at most 64.
var ntfyTopic = regexp.MustCompile(`^[-_A-Za-z0-9]{1,64}$`)

// envName is the name of an environment variable.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func validateNtfy(where string, n NotifyNtfy) Problems {
	var ps Problems
	if n.URL != "" && !strings.HasPrefix(n.URL, "https://") && !strings.HasPrefix(n.URL, "http://") {
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.url", Msg: "must be an http:// or https:// URL"})
	}
	if n.Topic != "" && !ntfyTopic.MatchString(n.Topic) {
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.topic", Msg: "must be 1 to 64 letters, digits, '-' or '_'"})
	}
	if n.ReplyTopic != "" && !ntfyTopic.MatchString(n.ReplyTopic) {
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.reply_topic", Msg: "must be 1 to 64 letters, digits, '-' or '_'"})
	}
	if n.Topic != "" && n.Reply && n.ReplyTopicOr() == n.Topic {
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.reply_topic", Msg: "must differ from topic"})
	}
	if n.Topic != "" && n.Reply && !ntfyTopic.MatchString(n.ReplyTopicOr()) {
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.topic", Msg: "is too long to add -reply to: set reply_topic"})
	}
	if n.TokenEnv != "" && (!envName.MatchString(n.TokenEnv) || strings.HasPrefix(n.TokenEnv, "tk_")) { // tk_…: a ntfy access token
		ps = append(ps, Problem{File: where, Key: "notify.ntfy.token_env", Msg: "must name an environment variable (letters, digits, '_'), not hold the token"})
	}
	return ps
}
