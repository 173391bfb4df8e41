package lifecycle

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/proc/proctest"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// fakeWorld is a repository folder git never sees and a tmux server that
// is not there: a proctest.Fake answers the git and tmux commands owt
// runs as a repository on main and a server with one session would, and
// records them. Its tests run in milliseconds.
type fakeWorld struct {
	t       *testing.T
	repo    string // the main checkout (a plain folder)
	exclude string // its info/exclude
	fake    *proctest.Fake
	ws      *Worktrees
}

const fakeTip = "1111111111111111111111111111111111111111"

func newFakeWorld(t *testing.T) *fakeWorld {
	root := t.TempDir()
	for k, v := range map[string]string{
		"HOME": filepath.Join(root, "home"), "XDG_STATE_HOME": filepath.Join(root, "state"),
		"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_CACHE_HOME": filepath.Join(root, "cache"),
		"TMUX_TMPDIR": filepath.Join(root, "tmux"), "TMUX": "",
	} {
		t.Setenv(k, v)
	}
	xdg.Reload() // the XDG directories are read once, at start
	os.Unsetenv("TMUX")
	// The agent's tool need only be found.
	bin := filepath.Join(root, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	w := &fakeWorld{t: t, repo: filepath.Join(root, "app")}
	w.exclude = filepath.Join(w.repo, ".git", "info", "exclude")
	require.NoError(t, os.MkdirAll(filepath.Dir(w.exclude), 0o755))
	require.NoError(t, os.WriteFile(w.exclude, []byte("# git ls-files --others --exclude-from=.git/info/exclude\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(w.repo, ".env"), []byte("X=1\n"), 0o600))

	f := proctest.New(t)
	w.fake = f
	f.On("git", "for-each-ref").Reply("refs/heads/main\n")
	f.On("git", "status", "--porcelain=v1").Reply("!! .env\x00")
	f.On("git", "worktree", "add").Do(func(c proctest.Call) proctest.Reply {
		// git makes the folder (the argument after "--").
		i := slices.Index(c.Args, "--")
		require.NoError(t, os.MkdirAll(c.Args[i+1], 0o755))
		return proctest.Reply{}
	})
	f.On("git", "config", "--bool")
	f.On("git", "rev-parse", "--git-path", "info/exclude").Reply(w.exclude + "\n")
	f.On("git", "rev-parse", "--verify").Reply(fakeTip + "\n")
	f.On("git", "show-ref", "--verify").Fail(1, "") // no branch of that name yet
	f.On("git", "worktree", "remove").Do(func(c proctest.Call) proctest.Reply {
		require.NoError(t, os.RemoveAll(c.Args[len(c.Args)-1]))
		return proctest.Reply{}
	})
	f.On("git", "worktree", "prune")
	f.On("git", "worktree", "list").Reply("worktree " + w.repo + "\x00HEAD " + fakeTip + "\x00branch refs/heads/main\x00\x00")
	f.On("git", "branch", "-D")
	f.On("tmux", "list-sessions").Reply("s\x1f$0\x1fharness\x1f0\x1f/\x1f1:1\n")
	f.On("tmux", "new-session").Reply("$1\x1f%1\x1fapp/add-feature\x1f1:1\n")
	f.On("tmux", "kill-session")
	f.On("tmux", "set-option")

	ws, err := workspace.OpenRepo(git.Repo{Root: w.repo, HeadBranch: "main"}, tmux.New())
	require.NoError(t, err)
	ws.Self = filepath.Join(root, "owt") // never run: Create fails before it starts the monitor
	ws.Log = io.Discard
	w.ws = Of(ws)
	return w
}

// undone are the commands of a rollback that ran, in order.
func (w *fakeWorld) undone() []string {
	var out []string
	for _, c := range w.fake.Calls("") {
		words := c.Words()
		for _, undo := range [][]string{{"worktree", "remove"}, {"branch", "-D"}, {"kill-session"}} {
			if len(words) >= len(undo) && slices.Equal(words[:len(undo)], undo) {
				out = append(out, strings.Join(words, " "))
			}
		}
	}
	return out
}

// nothingLeft checks that no record, create lock, worktree folder or
// line of info/exclude is left of the agent.
func (w *fakeWorld) nothingLeft(excludeBefore string) {
	t := w.t
	t.Helper()
	recs, err := w.ws.Records()
	require.NoError(t, err)
	require.Empty(t, recs, "no orphan record")
	require.False(t, state.IsHeld(state.CreateLock(w.repo, "add-feature")), "the create lock is let go")
	require.NoDirExists(t, filepath.Join(filepath.Dir(w.repo), "app.worktrees", "add-feature"))
	after, _ := os.ReadFile(w.exclude)
	require.Equal(t, excludeBefore, string(after), "info/exclude as it was")
}

// A failed step of Create undoes every step before it, newest first, and
// nothing else: each case fails one step the way git or tmux would.
func TestCreateUndoesTheStepsBeforeTheOneThatFailed(t *testing.T) {
	wt := func(w *fakeWorld) string { return filepath.Join(filepath.Dir(w.repo), "app.worktrees", "add-feature") }
	removeWorktree := func(w *fakeWorld) []string {
		return []string{"worktree remove --force --force -- " + wt(w), "branch -D -- feat/add-feature"}
	}
	for _, tc := range []struct {
		name  string
		fail  func(w *fakeWorld)
		err   string
		undid func(w *fakeWorld) []string
	}{{
		name: "worktree add",
		fail: func(w *fakeWorld) {
			w.fake.On("git", "worktree", "add").Fail(128, "fatal: could not create leading directories")
		},
		err:   "create worktree",
		undid: func(*fakeWorld) []string { return nil },
	}, {
		name: "listing the files to copy",
		fail: func(w *fakeWorld) {
			w.fake.On("git", "status", "--porcelain=v1").Fail(128, "fatal: index file corrupt")
		},
		err:   "list untracked files",
		undid: removeWorktree,
	}, {
		name: "copying a file",
		fail: func(w *fakeWorld) {
			// Only files are copied: a folder named like one is refused.
			require.NoError(w.t, os.Remove(filepath.Join(w.repo, ".env")))
			require.NoError(w.t, os.Mkdir(filepath.Join(w.repo, ".env"), 0o755))
		},
		err:   "copy files into",
		undid: removeWorktree,
	}, {
		name: "the agent's hooks",
		fail: func(w *fakeWorld) {
			w.fake.On("git", "rev-parse", "--git-path", "info/exclude").Fail(128, "fatal: not a git repository")
		},
		err:   "install claude hooks",
		undid: removeWorktree,
	}, {
		name: "the session",
		fail: func(w *fakeWorld) {
			w.fake.On("tmux", "new-session").Fail(1, "duplicate session: app/add-feature")
		},
		err:   "create tmux session",
		undid: removeWorktree,
	}, {
		name: "after the session",
		fail: func(w *fakeWorld) {
			testHookAfterStep = func(s string) error {
				if s == "session" {
					return errors.New("cut off")
				}
				return nil
			}
			w.t.Cleanup(func() { testHookAfterStep = nil })
		},
		err: "cut off",
		undid: func(w *fakeWorld) []string {
			return append([]string{"kill-session -t $1"}, removeWorktree(w)...)
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWorld(t)
			before, _ := os.ReadFile(w.exclude)
			tc.fail(w)
			_, err := w.ws.Create(CreateOptions{Task: "Add a feature", Tool: "claude", NoSetup: true})
			require.ErrorContains(t, err, tc.err)
			require.Equal(t, tc.undid(w), w.undone(), "what the rollback undid, in order")
			w.nothingLeft(string(before))
		})
	}
}

// The world above is one Create succeeds in: the failures are the cases'.
func TestCreateSucceedsInTheFakeWorld(t *testing.T) {
	w := newFakeWorld(t)
	rec, err := w.ws.Create(CreateOptions{Task: "Add a feature", Tool: "claude", NoSetup: true})
	require.NoError(t, err)
	require.Equal(t, "$1", rec.SessionID)
	require.Equal(t, []string{".env"}, rec.Copied)
	require.Empty(t, w.undone())
	require.FileExists(t, filepath.Join(rec.Path, ".claude", "settings.local.json"))
}
