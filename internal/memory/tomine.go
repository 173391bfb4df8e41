package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/owt-tmux/owt/internal/state"
)

// Gone is what mining needs of an agent owt tore down (merge, ship,
// delete, cleanup): its record goes with it, and the memory must not lose
// what it said or what it landed. owt appends one to the repository's
// "to mine" file (JSON lines, in the state dir) before the record goes;
// owt memory mine reads them, each once.
type Gone struct {
	At     time.Time `json:"at"`
	Agent  string    `json:"agent"`
	Branch string    `json:"branch"`
	// Summary is what it said with owt done --summary, and DoneAt when:
	// the pair keys the fact as the live record's summary is keyed, so a
	// summary mined before the teardown is not mined again.
	Summary string    `json:"summary,omitempty"`
	DoneAt  time.Time `json:"done_at,omitzero"`
	// Merged are the commits its merge brought into Into (the target's
	// range before..branch tip), newest first, with their messages; none
	// when it was deleted without landing.
	Merged []Commit `json:"merged,omitempty"`
	Into   string   `json:"into,omitempty"`
	// Landed says its work landed before the branch went (a merge, a
	// ship, a delete of a branch its base holds): what was learned on the
	// branch is not stale for the branch being gone.
	Landed bool `json:"landed,omitempty"`
	// Squashed is the target's commit that holds the merged commits'
	// changes when they were squashed into it (the commits themselves
	// are on no branch any more): the facts' source then.
	Squashed string `json:"squashed,omitempty"`
}

// Commit is one merged commit as mining reads it.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	Body    string `json:"body,omitempty"`
}

// maxGoneLine bounds one line of the file: a merge of many commits with
// long messages keeps the first ones that fit.
const maxGoneLine = 1 << 20

func toMinePath(root string) string {
	return filepath.Join(state.Dir(), "memory", filepath.Base(PathFor(root))+".tomine.jsonl")
}

// lockToMine is the lock of the repository's file (writers append whole
// lines under it; the reader reads under it, so it never sees half a
// line).
func lockToMine(root string, fn func() error) error {
	return state.WithLock("memory-"+filepath.Base(PathFor(root))+".tomine", fn)
}

// NoteGone appends g to the "to mine" file of the repository at root.
func NoteGone(root string, g Gone) error {
	line, err := json.Marshal(g)
	if err != nil {
		return err
	}
	for len(line) > maxGoneLine && len(g.Merged) > 0 {
		g.Merged = g.Merged[:len(g.Merged)/2]
		if line, err = json.Marshal(g); err != nil {
			return err
		}
	}
	path := toMinePath(root)
	return lockToMine(root, func() error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("keep %s's work for the memory: %w", g.Agent, err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("keep %s's work for the memory: %w", g.Agent, err)
		}
		_, werr := f.Write(append(line, '\n'))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("keep %s's work for the memory: write %s: %w", g.Agent, path, werr)
		}
		return nil
	})
}

// GoneOf is every agent of the repository at root noted by NoteGone,
// oldest first. A line that does not read (cut short by a crash) is
// passed over.
func GoneOf(root string) ([]Gone, error) {
	path := toMinePath(root)
	var out []Gone
	err := lockToMine(root, func() error {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			var g Gone
			if json.Unmarshal(line, &g) == nil && g.Agent != "" {
				out = append(out, g)
			}
		}
		return nil
	})
	return out, err
}
