package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/proc/proctest"
	"github.com/owt-tmux/owt/internal/state"
)

const (
	oldTip = "1111111111111111111111111111111111111111" // main
	tipSHA = "2222222222222222222222222222222222222222" // feat, one commit on main
)

// landWorld is a repository on main and an agent's worktree on feat,
// one commit ahead, as plain folders: a proctest.Fake answers git for
// them and records what was asked. Each field says how git finds them.
type landWorld struct {
	t             *testing.T
	repo, wt      string
	fake          *proctest.Fake
	c             *Context
	r             *state.Record
	worktreeDirty string // git status of the worktree
	targetDirty   string // git status of main's checkout (tracked files)
	worktreeOn    string // the branch the worktree's HEAD is on
	ancestors     map[[2]string]bool
	added         string // the files feat adds (git diff --diff-filter=A)
}

func newLandWorld(t *testing.T) *landWorld {
	root := t.TempDir()
	w := &landWorld{t: t, repo: filepath.Join(root, "proj"), wt: filepath.Join(root, "proj.wt"), worktreeOn: "feat",
		ancestors: map[[2]string]bool{{oldTip, tipSHA}: true}, added: "b.txt\x00"}
	for _, d := range []string{w.repo, w.wt, w.gitDir(w.repo), w.gitDir(w.wt)} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	f := proctest.New(t)
	w.fake = f
	f.On("git", "show-ref", "--verify")
	f.On("git", "status", "--untracked-files=all").Do(func(proctest.Call) proctest.Reply { return proctest.Reply{Stdout: w.worktreeDirty} })
	f.On("git", "status", "--untracked-files=no").Do(func(proctest.Call) proctest.Reply { return proctest.Reply{Stdout: w.targetDirty} })
	f.On("git", "rev-parse", "--git-path").Do(func(c proctest.Call) proctest.Reply {
		var out strings.Builder
		words := c.Words()
		for i, a := range words {
			if a == "--git-path" {
				out.WriteString(filepath.Join(w.gitDir(c.Option("-C")), words[i+1]) + "\n")
			}
		}
		return proctest.Reply{Stdout: out.String()}
	})
	f.On("git", "symbolic-ref", "-q", "HEAD").Do(func(c proctest.Call) proctest.Reply {
		if c.Option("-C") == w.wt {
			return proctest.Reply{Stdout: "refs/heads/" + w.worktreeOn + "\n"}
		}
		return proctest.Reply{Stdout: "refs/heads/main\n"}
	})
	f.On("git", "rev-parse", "--verify", "refs/heads/main^{commit}").Reply(oldTip + "\n")
	f.On("git", "rev-parse", "--verify", "refs/heads/feat^{commit}").Reply(tipSHA + "\n")
	f.On("git", "rev-parse", "--verify", "HEAD").Reply(tipSHA + "\n")
	f.On("git", "merge-base").Reply(oldTip + "\n")
	f.On("git", "merge-base", "--is-ancestor").Do(func(c proctest.Call) proctest.Reply {
		a := c.Args[len(c.Args)-2:]
		if w.ancestors[[2]string{a[0], a[1]}] {
			return proctest.Reply{}
		}
		return proctest.Reply{Code: 1}
	})
	f.On("git", "worktree", "list").Reply("worktree " + w.repo + "\x00HEAD " + oldTip + "\x00branch refs/heads/main\x00\x00" +
		"worktree " + w.wt + "\x00HEAD " + tipSHA + "\x00branch refs/heads/feat\x00\x00")
	f.On("git", "diff", "--diff-filter=A").Do(func(proctest.Call) proctest.Reply { return proctest.Reply{Stdout: w.added} })
	f.On("git", "ls-files") // nothing in the way is tracked
	f.On("git", "merge", "--ff-only")

	repo := git.Repo{Root: w.repo, CommonDir: w.gitDir(w.repo), HeadBranch: "main", Toplevel: w.repo}
	w.c = &Context{Git: repo}
	w.r = &state.Record{Name: "feat", Branch: "feat", Base: "main", Path: w.wt, Repo: w.repo}
	return w
}

// gitDir is where the fake's git keeps a checkout's own files
// (MERGE_HEAD, rebase-merge …).
func (w *landWorld) gitDir(dir string) string {
	return filepath.Join(filepath.Dir(w.repo), "git", filepath.Base(dir))
}

// changed are the commands that change a branch or a checkout.
func (w *landWorld) changed() []string {
	var out []string
	for _, c := range w.fake.Calls("git") {
		words := c.Words()
		switch words[0] {
		case "merge", "update-ref", "commit", "commit-tree", "reset", "checkout", "switch", "stash", "rebase", "add", "read-tree", "clean":
			if words[0] == "merge" && len(words) > 1 && words[1] == "--no-commit" {
				break
			}
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}

// owt merge and owt ship refuse, changing nothing, what they must not
// land: each case is one reason, as git tells it.
func TestMergeAndShipRefuseChangingNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ship  bool
		world func(w *landWorld)
		err   string
		is    error
	}{{
		name:  "merge: uncommitted work in the worktree",
		world: func(w *landWorld) { w.worktreeDirty = "?? d.txt\x00" },
		err:   "feat has uncommitted changes in 1 file(s): d.txt; commit them, or run 'owt ship feat' to commit and merge",
		is:    ErrUncommitted,
	}, {
		name:  "merge: no commits main lacks",
		world: func(w *landWorld) { w.ancestors[[2]string{tipSHA, oldTip}] = true },
		is:    ErrNothingToMerge,
	}, {
		name:  "merge: the worktree is on another branch",
		world: func(w *landWorld) { w.worktreeOn = "other" },
		err:   "is not on feat; check it out first",
	}, {
		name: "merge: a rebase in progress in the worktree",
		world: func(w *landWorld) {
			require.NoError(w.t, os.Mkdir(filepath.Join(w.gitDir(w.wt), "rebase-merge"), 0o755))
		},
		err: "feat: a rebase is in progress in ",
	}, {
		name:  "merge: the target's checkout is dirty",
		world: func(w *landWorld) { w.targetDirty = " M a.txt\x00" },
		err:   "main is checked out in ",
	}, {
		name: "merge: the target's checkout is mid-merge",
		world: func(w *landWorld) {
			require.NoError(w.t, os.WriteFile(filepath.Join(w.gitDir(w.repo), "MERGE_HEAD"), nil, 0o644))
		},
		err: "a merge in progress",
	}, {
		name:  "merge: an untracked file where the merge adds one",
		world: func(w *landWorld) { require.NoError(w.t, os.WriteFile(filepath.Join(w.repo, "b.txt"), nil, 0o644)) },
		err:   "b.txt",
	}, {
		name:  "ship: the target's checkout is dirty",
		ship:  true,
		world: func(w *landWorld) { w.targetDirty = " M a.txt\x00" },
		err:   "main is checked out in ",
	}, {
		name:  "ship: nothing to ship",
		ship:  true,
		world: func(w *landWorld) { w.ancestors[[2]string{tipSHA, oldTip}] = true },
		is:    ErrEmpty,
	}, {
		name: "ship: a rebase in progress in the worktree",
		ship: true,
		world: func(w *landWorld) {
			require.NoError(w.t, os.Mkdir(filepath.Join(w.gitDir(w.wt), "rebase-apply"), 0o755))
		},
		err: "feat: a rebase is in progress in ",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newLandWorld(t)
			tc.world(w)
			var err error
			if tc.ship {
				_, err = w.c.Ship(w.r, "")
			} else {
				_, err = w.c.Merge(w.r, Options{})
			}
			require.Error(t, err)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			require.ErrorContains(t, err, tc.err)
			require.Empty(t, w.changed(), "nothing changed")
		})
	}
}

// The world above is one a merge lands in (by a fast-forward of the
// clean checkout): the refusals are the cases'.
func TestMergeLandsInTheFakeWorld(t *testing.T) {
	w := newLandWorld(t)
	res, err := w.c.Merge(w.r, Options{})
	require.NoError(t, err)
	require.Equal(t, "fast-forward", res.Method)
	require.Equal(t, []string{"merge --ff-only --quiet --no-stat " + tipSHA}, w.changed())
}
