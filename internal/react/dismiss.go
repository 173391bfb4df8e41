package react

import (
	"fmt"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Dismissed is one escalated reaction the user dismissed, and why it
// needed them.
type Dismissed struct {
	Reaction string `json:"reaction"`
	Was      string `json:"was"`
}

// Dismissal is what Dismiss did to one worktree's reactions.
type Dismissal struct {
	Name      string      `json:"name"`
	Dismissed []Dismissed `json:"dismissed"`
	// NotNeeded are the reactions asked for that did not need the user.
	NotNeeded []string `json:"not_needed"`
}

// Dismiss is the user saying "seen, I'll handle it" (owt dismiss, the
// control popup's a): each named reaction of the worktree called name
// that needs the user (every one when reactions is empty) stops needing
// them, and its attempts start again. Its signature and what it last
// judged stay, so the same cause is not sent again; a new cause gets a
// fresh budget of attempts. When nothing needed the user it changes
// nothing and says so. The status bar is told at once.
func Dismiss(w *workspace.Workspace, name string, reactions []string) (Dismissal, error) {
	out := Dismissal{Name: name, Dismissed: []Dismissed{}, NotNeeded: []string{}}
	err := w.Store.Update(func(f *state.File) error {
		rec := f.Records[name]
		if rec == nil {
			return fmt.Errorf("%w %q in %s (see 'owt list')", state.ErrUnknownName, name, w.Repo.Root)
		}
		for _, n := range dismissible(rec, reactions) {
			st := rec.Reactions[n]
			if st == nil || st.NeedsYou == "" {
				out.NotNeeded = append(out.NotNeeded, n)
				continue
			}
			out.Dismissed = append(out.Dismissed, Dismissed{Reaction: n, Was: st.NeedsYou})
			st.NeedsYou, st.Attempts, st.Passes = "", 0, 0
		}
		if len(out.Dismissed) == 0 {
			return state.ErrNoChange
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	if len(out.Dismissed) == 0 {
		return out, nothingToDismiss(name, reactions)
	}
	// The monitor would redraw the bar on its next tick; the user who just
	// dismissed it should not wait for that.
	_ = status.PublishSummaryLocked(w.Tmux)
	return out, nil
}

// dismissible are the reactions Dismiss looks at: those named, or every
// one of rec that needs the user.
func dismissible(rec *state.Record, named []string) []string {
	var out []string
	if len(named) > 0 {
		seen := map[string]bool{}
		for _, n := range named {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		return out
	}
	for n, st := range rec.Reactions {
		if st != nil && st.NeedsYou != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func nothingToDismiss(name string, reactions []string) error {
	if len(reactions) == 0 {
		return fmt.Errorf("no reaction of %s needs you", name)
	}
	if len(reactions) == 1 {
		return fmt.Errorf("%s of %s does not need you", reactions[0], name)
	}
	return fmt.Errorf("%s of %s do not need you", strings.Join(reactions, ", "), name)
}
