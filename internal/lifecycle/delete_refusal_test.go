package lifecycle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/proc/proctest"
	"github.com/owt-tmux/owt/internal/state"
)

// deleteWorld is a fake world with an agent made in it, whose branch
// has unmerged commits, whose worktree has the files dirty (git status's
// lines), and which git answers as git would for owt delete.
func deleteWorld(t *testing.T, unmerged int, dirty ...string) (*fakeWorld, *state.Record) {
	w := newFakeWorld(t)
	rec, err := w.ws.Create(CreateOptions{Task: "Add a feature", Tool: "claude", NoSetup: true})
	require.NoError(t, err)
	f := w.fake
	status := ""
	for _, d := range dirty {
		status += "?? " + d + "\x00"
	}
	f.On("git", "status").Reply(status)
	// No hook settings file is tracked on the branch.
	f.On("git", "cat-file", "--batch").Do(func(c proctest.Call) proctest.Reply {
		var out strings.Builder
		for _, l := range strings.Fields(c.Stdin) {
			out.WriteString(l + " missing\n")
		}
		return proctest.Reply{Stdout: out.String()}
	})
	f.On("git", "rev-list", "--count", "HEAD", "--not").Reply("0\n") // no detached commits
	f.On("git", "rev-list", "--count", "refs/heads/"+rec.Branch).Reply(fmt.Sprintf("%d\n", unmerged))
	f.On("git", "show-ref", "--verify") // the branch and its base exist
	f.On("git", "merge-base", "--is-ancestor").Fail(1, "")
	f.On("tmux", "list-sessions").Reply(rec.SessionID + "\x1f" + rec.Session + "\x1f0\x1f" + rec.Path + "\x1f1:1\n") // the server that made it
	f.On("tmux", "show-options")
	f.On("tmux", "list-clients")
	return w, rec
}

// destroyed are the commands that would destroy an agent's work.
func (w *fakeWorld) destroyed() []string {
	var out []string
	for _, c := range w.fake.Calls("") {
		words := strings.Join(c.Words(), " ")
		for _, d := range []string{"kill-session", "worktree remove", "branch -D", "update-ref -d"} {
			if strings.HasPrefix(words, d) {
				out = append(out, words)
			}
		}
	}
	return out
}

// owt delete refuses, changing nothing, when work would be lost: the
// agent keeps its session, worktree, branch and record.
func TestDeleteRefusalsKeepEverythingOfTheAgent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		unmerged int
		dirty    []string
		o        DeleteOptions
		err      string
	}{{
		name:  "uncommitted work",
		dirty: []string{"y.go"},
		err:   "add-feature would lose work: 1 uncommitted file(s): y.go (commit or merge it first, or use --force)",
	}, {
		name:     "unmerged commits",
		unmerged: 2,
		err:      "add-feature would lose work: 2 commit(s) that neither its base nor any other branch holds (commit or merge it first, or use --force)",
	}, {
		name:     "more than was accepted",
		unmerged: 1,
		dirty:    []string{"y.go", "z.go"},
		o:        DeleteOptions{Accept: &Loss{DirtyFiles: []string{"y.go"}, Unmerged: 1}},
		err:      "more than you agreed to",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w, rec := deleteWorld(t, tc.unmerged, tc.dirty...)
			left := false
			tc.o.Leaving = func() { left = true }
			err := w.ws.Delete(rec.Name, tc.o)
			require.ErrorIs(t, err, ErrWouldLoseWork)
			require.ErrorContains(t, err, tc.err)
			require.Empty(t, w.destroyed(), "nothing of the agent is destroyed")
			require.False(t, left, "the popup's client is not moved off a session that stays")
			require.DirExists(t, rec.Path)
			_, err = w.ws.Get(rec.Name)
			require.NoError(t, err, "the record stays")
		})
	}
}

// What the refusals above keep, a delete with nothing to lose (or
// --force) removes: session, then worktree, then branch, then record.
func TestDeleteWithNothingToLoseRemovesEverything(t *testing.T) {
	for _, tc := range []struct {
		name     string
		unmerged int
		dirty    []string
		o        DeleteOptions
		remove   string // git worktree remove's options: a clean worktree is not forced
	}{
		{name: "clean", remove: "worktree remove -- "},
		{name: "forced", unmerged: 2, dirty: []string{"y.go"}, o: DeleteOptions{Force: true}, remove: "worktree remove --force --force -- "},
		{name: "accepted", unmerged: 1, dirty: []string{"y.go"}, o: DeleteOptions{Accept: &Loss{DirtyFiles: []string{"y.go", "z.go"}, Unmerged: 2}}, remove: "worktree remove --force --force -- "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, rec := deleteWorld(t, tc.unmerged, tc.dirty...)
			require.NoError(t, w.ws.Delete(rec.Name, tc.o))
			require.Equal(t, []string{
				"kill-session -t $1",
				tc.remove + rec.Path,
				"branch -D -- " + rec.Branch,
			}, w.destroyed())
			_, err := w.ws.Get(rec.Name)
			require.ErrorIs(t, err, state.ErrUnknownName)
			require.NoDirExists(t, rec.Path)
		})
	}
}
