package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex reports the end of a turn by running its notify program with the
// event JSON as the last argument (Codex config reference: notify runs on
// agent-turn-complete only). A linked worktree reads project .codex/ from
// the main checkout, so owt passes notify on the command line with -c,
// which overrides the config files: the user's own notify program is read
// from them and chained behind owt's, so it keeps working.
//
// Codex's lifecycle hooks are not installed per worktree: Codex 0.169
// wants every hooks file reviewed and trusted (keyed by its path), so each
// new worktree would stop at "Hooks need review". Installed once in the
// user's $CODEX_HOME/hooks.json (owt tools codex-hooks, which the
// user then trusts once in Codex), they report every agent's turn, and owt
// stops passing -c notify, which makes Codex run without its shared
// background server.

// CodexNotifyArgs returns the arguments that make codex run "owt hook codex
// notify", followed by chain (the user's notify argv) when there is one.
func CodexNotifyArgs(owt string, chain []string) ([]string, error) {
	argv := append([]string{owt, "hook", "codex", "notify"}, chain...)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// A JSON array of strings is a valid TOML inline array.
	if err := enc.Encode(argv); err != nil {
		return nil, err
	}
	return []string{"-c", "notify=" + string(bytes.TrimSpace(b.Bytes()))}, nil
}

// CodexUserNotify returns the notify argv the user configured for Codex:
// the project's .codex/config.toml in the main checkout, else
// $CODEX_HOME/config.toml (default ~/.codex). owt's own notify is ignored.
func CodexUserNotify(repoRoot string) []string {
	for _, path := range []string{filepath.Join(repoRoot, ".codex", "config.toml"), filepath.Join(CodexHome(), "config.toml")} {
		var cfg struct {
			Notify []string `toml:"notify"`
		}
		if _, err := toml.DecodeFile(path, &cfg); err != nil || len(cfg.Notify) == 0 {
			continue
		}
		if isOwtNotify(cfg.Notify) {
			return nil
		}
		return cfg.Notify
	}
	return nil
}

func isOwtNotify(argv []string) bool {
	return len(argv) >= 3 && strings.HasPrefix(filepath.Base(argv[0]), "owt") && argv[1] == "hook" && argv[2] == "codex"
}

// HookArgs returns the extra arguments the tool needs to report to owt:
// Codex's notify, unless owt's lifecycle hooks are in the user's Codex
// hooks file; nil for tools whose hooks live in settings files.
func (p Profile) HookArgs(owt, repoRoot string) ([]string, error) {
	if p.Hooks != "codex" || CodexHooksInstalled() {
		return nil, nil
	}
	return CodexNotifyArgs(owt, CodexUserNotify(repoRoot))
}

// CodexUserHooks is the user-level Codex hooks file owt can install its
// lifecycle hooks into (Claude's shape, timeouts in seconds; the events
// are the ones codex 0.169 lists in /hooks, Interrupt being its Esc).
// Codex caps the timeout of its Interrupt and SessionEnd hooks at 3 s
// and says so at every start ("clamping Interrupt hook timeout to 3s"),
// so owt writes 3 for those two. Codex's trust in a hook covers its
// timeout: a changed one is reviewed again.
var CodexUserHooks = HookFile{
	Path:          "hooks.json",
	Events:        []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop", "Interrupt", "SessionEnd"},
	Timeout:       10,
	EventTimeouts: map[string]int{"Interrupt": CodexShortHookTimeout, "SessionEnd": CodexShortHookTimeout},
}

// CodexHooksOverCaps are the events whose owt hook in a Codex hooks file
// has a timeout over what owt writes for it now (an owt from before
// CodexShortHookTimeout wrote 10 s for every event): Codex warns about
// each at every start.
func CodexHooksOverCaps(data []byte) []string {
	var f struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	var out []string
	for _, event := range CodexUserHooks.Events {
		for _, g := range f.Hooks[event] {
			for _, c := range g.Hooks {
				var cmd struct {
					Command string `json:"command"`
					Timeout int    `json:"timeout"`
				}
				if json.Unmarshal(c, &cmd) == nil && IsOwtHookCommand(cmd.Command) && cmd.Timeout > CodexUserHooks.TimeoutOf(event) {
					out = append(out, event)
				}
			}
		}
	}
	return out
}

// CodexShortHookTimeout is the most Codex (0.169 to 0.171) lets an
// Interrupt or SessionEnd hook run, in seconds.
const CodexShortHookTimeout = 3

// CodexHome is $CODEX_HOME, else ~/.codex.
func CodexHome() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// CodexHooksPath is the user's Codex hooks file.
func CodexHooksPath() string { return filepath.Join(CodexHome(), CodexUserHooks.Path) }

// CodexHooksInstalled reports whether the user's Codex hooks file holds
// owt's hooks.
func CodexHooksInstalled() bool {
	data, err := os.ReadFile(CodexHooksPath())
	if err != nil {
		return false
	}
	return HasOwtHooks(data)
}

// HasOwtHooks reports whether a hooks settings file holds an owt hook.
func HasOwtHooks(data []byte) bool {
	var f struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if json.Unmarshal(data, &f) != nil {
		return false
	}
	for _, groups := range f.Hooks {
		for _, g := range groups {
			for _, c := range g.Hooks {
				var cmd struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(c, &cmd) == nil && IsOwtHookCommand(cmd.Command) {
					return true
				}
			}
		}
	}
	return false
}

// StaleOwtHooks reports whether a hooks settings file holds an owt hook
// that is not the command this owt (at owt) writes for its event: one an
// older owt wrote, naming its owt-hook program or owt at another path.
func StaleOwtHooks(data []byte, kind, owt string) bool {
	var f struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if json.Unmarshal(data, &f) != nil {
		return false
	}
	if HookFiles[kind].StatusLine && staleStatusLine(data, owt) {
		return true
	}
	for event, groups := range f.Hooks {
		for _, g := range groups {
			for _, c := range g.Hooks {
				var cmd struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(c, &cmd) == nil && IsOwtHookCommand(cmd.Command) && cmd.Command != HookCommand(owt, kind, event) {
					return true
				}
			}
		}
	}
	return false
}

// RemoveHooks returns a hooks settings file without owt's hooks; the
// user's stay as they were.
func RemoveHooks(data []byte) ([]byte, error) {
	top := &orderedObject{}
	if err := top.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	line := stripStatusLine(top)
	raw, ok := top.Get("hooks")
	if !ok || isNull(raw) {
		if line {
			return indentSettings(top)
		}
		return data, nil
	}
	hooks := &orderedObject{}
	if err := hooks.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("\"hooks\" is not an object: %w", err)
	}
	if err := dropOwt(hooks); err != nil {
		return nil, err
	}
	if err := top.SetValue("hooks", hooks); err != nil {
		return nil, err
	}
	return indentSettings(top)
}

// WithArgs inserts extra right after the profile's Command in argv (an
// argv made by Argv), before any prompt, so flags stay flags.
func (p Profile) WithArgs(argv, extra []string) []string {
	if len(extra) == 0 || len(argv) < len(p.Command) {
		return argv
	}
	out := append([]string{}, argv[:len(p.Command)]...)
	out = append(out, extra...)
	return append(out, argv[len(p.Command):]...)
}
