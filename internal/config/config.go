// Package config loads owt's layered TOML configuration:
// built-in defaults < $XDG_CONFIG_HOME/owt/config.toml < <repo>/.owt.toml.
//
// Every layer is decoded strictly: a key owt does not know, or a value of
// the wrong type, is an error that names the file and the key, because a
// silently ignored typo in a config file is worse than a loud one.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/adrg/xdg"
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
	Tools    map[string]Tool `toml:"tools,omitempty"`
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
	// "exited". Empty turns notifications off.
	On []string `toml:"on"`
	// Desktop also runs notify-send.
	Desktop bool `toml:"desktop"`
	// Command is run (argv, no shell) on each notification with OWT_NAME,
	// OWT_STATUS, OWT_REPO and OWT_PATH in its environment.
	Command []string `toml:"command"`
}

// NotifyStatuses are the statuses [notify] on accepts.
var NotifyStatuses = []string{"waiting", "idle", "exited"}

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
		Notify: Notify{On: append([]string(nil), NotifyStatuses...), Command: []string{}},
		Tools:  map[string]Tool{},
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
// any layer has unknown or mistyped keys.
func Load(repoRoot string) (Config, error) {
	cfg := Defaults()
	files := []string{UserFile()}
	if repoRoot != "" {
		files = append(files, filepath.Join(repoRoot, RepoFile))
	}
	var problems Problems
	for _, f := range files {
		ps, err := apply(&cfg, f)
		if err != nil {
			return cfg, err
		}
		problems = append(problems, ps...)
	}
	problems = append(problems, validate(cfg)...)
	if len(problems) > 0 {
		return cfg, problems
	}
	return cfg, nil
}

// apply decodes one file over cfg. Tools merge field by field so a repo file
// can override one field of a tool the user file defined.
func apply(cfg *Config, file string) (Problems, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", file, err)
	}
	layer := *cfg
	layer.Tools = nil
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&layer)
	if err != nil {
		return Problems{decodeProblem(file, err)}, nil
	}
	var problems Problems
	for _, k := range md.Undecoded() {
		problems = append(problems, Problem{File: file, Key: k.String(), Msg: "unknown key"})
	}
	tools := cfg.Tools
	*cfg = layer
	cfg.Tools = mergeTools(tools, layer.Tools)
	return problems, nil
}

func decodeProblem(file string, err error) Problem {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		key := ""
		if perr.LastKey != "" {
			key = perr.LastKey
		}
		msg := perr.Message
		if msg == "" {
			msg = perr.Error()
		}
		return Problem{File: fmt.Sprintf("%s:%d", file, perr.Position.Line), Key: key, Msg: msg}
	}
	return Problem{File: file, Msg: err.Error()}
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
	return base
}

func validate(cfg Config) Problems {
	var ps Problems
	where := "config"
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
	if len(cfg.Notify.Command) > 0 && strings.TrimSpace(cfg.Notify.Command[0]) == "" {
		ps = append(ps, Problem{File: where, Key: "notify.command", Msg: "the first element must name a program"})
	}
	if cfg.Agent.ReadyTimeout.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "agent.ready_timeout", Msg: "must be more than 0 (like \"90s\")"})
	}
	if cfg.Agent.SendTimeout.Duration <= 0 {
		ps = append(ps, Problem{File: where, Key: "agent.send_timeout", Msg: "must be more than 0 (like \"30s\")"})
	}
	names := make([]string, 0, len(cfg.Tools))
	for n := range cfg.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := cfg.Tools[n]
		switch t.Prompt {
		case "", "arg", "paste", "none":
		default:
			ps = append(ps, Problem{File: where, Key: "tools." + n + ".prompt", Msg: fmt.Sprintf("must be \"arg\", \"paste\" or \"none\", not %q", t.Prompt)})
		}
	}
	return ps
}

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
