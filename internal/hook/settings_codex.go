package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/atomicfile"
)

// InstallCodexHooks merges owt's lifecycle hooks into the user's Codex
// hooks file ($CODEX_HOME/hooks.json), keeping the user's own hooks, and
// returns its path. Codex then asks the user, once, to review and trust
// them; from then on owt no longer passes -c notify to codex.
func InstallCodexHooks(owt string) (string, error) {
	path := agent.CodexHooksPath()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, fmt.Errorf("read %s: %w", path, err)
	}
	merged, err := agent.MergeHooks(data, agent.CodexUserHooks, "codex", owt)
	if err != nil {
		return path, fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.Replace(path, merged, 0o600); err != nil {
		return path, fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// RemoveCodexHooks takes owt's hooks out of the user's Codex hooks file,
// leaving the user's own; it reports whether there were any.
func RemoveCodexHooks() (string, bool, error) {
	path := agent.CodexHooksPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !agent.HasOwtHooks(data) {
		return path, false, nil
	}
	if err != nil {
		return path, false, fmt.Errorf("read %s: %w", path, err)
	}
	kept, err := agent.RemoveHooks(data)
	if err != nil {
		return path, false, fmt.Errorf("%s: %w", path, err)
	}
	if err := atomicfile.Replace(path, kept, 0o600); err != nil {
		return path, false, fmt.Errorf("write %s: %w", path, err)
	}
	return path, true, nil
}
