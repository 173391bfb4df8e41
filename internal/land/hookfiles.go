package land

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// hookOverlays returns what ship commits for the settings files among work
// that hold owt's hooks: a tracked settings file owt merged its hooks into
// (noted on the record, or marked skip-worktree, which is how owt hides
// it). Their worktree copies carry owt's hook commands, which must never
// be committed, and git add refuses a skip-worktree file anyway; so each
// is committed as its worktree content without owt's hooks, laid out like
// HEAD's version, while the worktree copy keeps the hooks (the agent is
// still running). A deleted one is committed as a deletion. A file that is
// no longer JSON cannot be told apart from owt's hooks: ship refuses it.
func hookOverlays(r *state.Record, work []string) ([]git.Overlay, error) {
	if len(work) == 0 {
		return nil, nil
	}
	hooked, err := git.SkipWorktreeFiles(r.Path, work)
	if err != nil {
		return nil, fmt.Errorf("check %s for hidden files: %w", r.Name, err)
	}
	for _, h := range r.HookFiles {
		if h.Tracked && slices.Contains(work, h.Path) && !slices.Contains(hooked, h.Path) {
			hooked = append(hooked, h.Path)
		}
	}
	var over []git.Overlay
	for _, rel := range hooked {
		cur, err := os.ReadFile(filepath.Join(r.Path, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			over = append(over, git.Overlay{Path: rel, Delete: true})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Join(r.Path, rel), err)
		}
		stripped, err := agent.StripHookSettings(cur)
		if err != nil {
			return nil, fmt.Errorf("%s: %s holds owt's hooks but is not valid JSON (%v), so owt cannot leave its hooks out of the commit; fix the file in %s, then ship again", r.Name, rel, err, r.Path)
		}
		head, _, err := git.HeadFile(r.Path, rel)
		if err != nil {
			return nil, err
		}
		over = append(over, git.Overlay{Path: rel, Data: agent.FormatSettingsLike(stripped, head)})
	}
	return over, nil
}
