package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// Work corrects dirty (git's view of the worktree of r) for the
// tracked settings files owt merged its hooks into. owt marks those
// skip-worktree so its hook lines never show, which hides the agent's
// edits of the file too; and a user who unmarks one sees owt's lines as a
// change. Either way git status cannot tell, so owt looks itself: such a
// file is work exactly when its content without owt's hooks differs, as
// JSON, from HEAD's (or it was deleted).
//
// An untracked settings file owt created is hidden by info/exclude, so
// git status never shows what the agent adds to it either: it is work when
// it holds anything besides owt's hooks.
func Work(r *state.Record, dirty []string) ([]string, error) {
	files, err := trackedHookFiles(r)
	if err != nil {
		return nil, err
	}
	for _, h := range r.HookFiles {
		switch {
		case !h.Tracked && r.InPlace:
			// The user's own settings in their checkout: owt puts them
			// back as they are when the agent goes, so they are not work.
			dirty = slices.DeleteFunc(dirty, func(d string) bool { return d == h.Path })
		case !h.Tracked:
			files = append(files, h.Path)
		}
	}
	for _, rel := range files {
		changed, err := hookFileChanged(r.Path, rel)
		if err != nil {
			return nil, err
		}
		i := slices.Index(dirty, rel)
		switch {
		case changed && i < 0:
			dirty = append(dirty, rel)
		case !changed && i >= 0:
			dirty = slices.Delete(dirty, i, i+1)
		}
	}
	return dirty, nil
}

// trackedHookFiles are the tracked settings files of r's worktree holding
// owt's hooks. A record from before owt noted them, or rebuilt after a
// corrupt state file, notes none: then they are those of its tool's
// settings files (any tool's, when the tool was lost) that are marked
// skip-worktree there, which is what owt did to them.
func trackedHookFiles(r *state.Record) ([]string, error) {
	if len(r.HookFiles) > 0 {
		var out []string
		for _, h := range r.HookFiles {
			if h.Tracked {
				out = append(out, h.Path)
			}
		}
		return out, nil
	}
	if r.NoAgent {
		return nil, nil
	}
	var candidates []string
	if spec, ok := agent.HookFiles[r.Tool]; ok {
		candidates = []string{spec.Path}
	} else if r.Recovered {
		for _, spec := range agent.HookFiles {
			candidates = append(candidates, spec.Path)
		}
		sort.Strings(candidates)
	} else {
		return nil, nil // a tool without a settings file: nothing to hide
	}
	return git.SkipWorktreeFiles(r.Path, candidates)
}

// hookFileChanged reports whether the settings file rel of the worktree at
// dir holds more than HEAD's version plus owt's hooks. A file that is no
// longer JSON is a change: owt cannot tell its hooks apart in it.
func hookFileChanged(dir, rel string) (bool, error) {
	head, inHead, err := git.HeadFile(dir, rel)
	if err != nil {
		return false, err
	}
	cur, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return inHead, nil // deleted
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", filepath.Join(dir, rel), err)
	}
	stripped, err := agent.StripHookSettings(cur)
	if err != nil {
		return true, nil
	}
	return !agent.SameSettings(stripped, head), nil // not in HEAD: compared with no settings
}
