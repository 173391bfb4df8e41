package agent

import (
	"bytes"
	"encoding/json"
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
// Codex's lifecycle hooks (hooks.json / [hooks]) are not installed: they
// must be reviewed and trusted in Codex before they run, and the screen
// covers what they would add (working, approvals).

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
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".codex")
		}
	}
	for _, path := range []string{filepath.Join(repoRoot, ".codex", "config.toml"), filepath.Join(home, "config.toml")} {
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
// Codex's notify; nil for tools whose hooks live in settings files.
func (p Profile) HookArgs(owt, repoRoot string) ([]string, error) {
	if p.Hooks != "codex" {
		return nil, nil
	}
	return CodexNotifyArgs(owt, CodexUserNotify(repoRoot))
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
