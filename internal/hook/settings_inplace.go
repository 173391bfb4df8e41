package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// RestoreInPlace takes owt's hooks out of the settings files of an
// in-place agent's checkout (the user's own) as the agent goes: a file
// nobody changed since gets its former bytes back (or goes, when owt
// made it); one edited since keeps the edits without owt's hooks. It
// reports what it could not restore; the checkout keeps everything else.
func (w *Files) RestoreInPlace(r *state.Record) []error {
	if !r.InPlace {
		return nil
	}
	var errs []error
	for _, h := range r.HookFiles {
		if err := restoreHookFile(r.Path, h); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// restoreHookFile puts the settings file h of the checkout at dir back as
// it was before owt merged its hooks in (see RestoreInPlace).
func restoreHookFile(dir string, h state.HookFile) error {
	path := filepath.Join(dir, filepath.FromSlash(h.Path))
	cur, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Gone already (someone deleted it): nothing of owt's is left.
	case err != nil:
		return fmt.Errorf("restore %s: %w", path, err)
	default:
		if err := writeRestored(path, cur, h); err != nil {
			return err
		}
	}
	if h.Tracked {
		if err := git.NoSkipWorktree(dir, h.Path); err != nil {
			return err
		}
	}
	return nil
}

func writeRestored(path string, cur []byte, h state.HookFile) error {
	stripped, err := agent.StripHookSettings(cur)
	if err != nil {
		return fmt.Errorf("restore %s: it is no longer JSON owt can read (%v); take owt's hooks out of it by hand", path, err)
	}
	var prior []byte
	if h.Existed {
		if prior, err = agent.StripHookSettings(h.Prior); err != nil {
			prior = nil // it held no JSON before: compare with nothing
		}
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	switch {
	case h.Existed && prior != nil && agent.SameSettings(stripped, prior) && agent.SameSettings(h.Prior, prior):
		if bytes.Equal(cur, h.Prior) {
			return nil
		}
		return writeFile(path, h.Prior, mode) // unchanged but for owt's hooks: the very bytes
	case !h.Existed && agent.SameSettings(stripped, []byte("{}")):
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore %s: %w", path, err)
		}
		if h.MadeDir {
			_ = os.Remove(filepath.Dir(path)) // only when empty
		}
		return nil
	case h.Existed:
		return writeFile(path, agent.FormatSettingsLike(stripped, h.Prior), mode)
	default:
		return writeFile(path, stripped, mode)
	}
}

func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	return nil
}

// WithdrawHooks takes owt's hooks (and owt's MCP server) out of the
// settings files of r's worktree and leaves the worktree in place, for
// owt uninstall keeping a worktree that holds work: the user's settings
// and hooks stay. An in-place agent's files get what RestoreInPlace
// gives them. A file owt created holding nothing else goes; a tracked
// one that, without owt's hooks, reads as HEAD's gets HEAD's very bytes
// back and is no longer skip-worktree. It reports what it could not do.
func WithdrawHooks(r *state.Record) []error {
	if r.InPlace {
		var errs []error
		for _, h := range r.HookFiles {
			if err := restoreHookFile(r.Path, h); err != nil {
				errs = append(errs, err)
			}
		}
		return errs
	}
	var errs []error
	for _, h := range r.HookFiles {
		if h.Tracked {
			if data, found, err := git.HeadFile(r.Path, h.Path); err == nil && found {
				h.Existed, h.Prior = true, data
			}
		}
		if err := restoreHookFile(r.Path, h); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
