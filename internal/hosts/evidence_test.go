package hosts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// The evidence a host gives of its agent is its record and the readings
// of its own branch against its start: commits that change something,
// uncommitted files, the branch's tip; a working agent's is its record
// alone.
func TestReadEvidenceIsTheRecordAndTheBranchsWork(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644))
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "init")
	start := gitIn(t, repo, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "task", wt)
	root := gitIn(t, repo, "rev-parse", "--show-toplevel")

	rec := &state.Record{Name: "g-a", Repo: root, Path: wt, Branch: "task", Base: "main", BaseCommit: start,
		Status: state.Working, StatusSince: time.Now().UTC().Truncate(time.Second)}
	save := func() {
		require.NoError(t, state.ForRepo(root).Update(func(f *state.File) error { f.Records[rec.Name] = rec; return nil }))
	}
	save()
	_, err := ReadEvidence(repo, EvidenceSpec{Name: "nobody"})
	require.ErrorContains(t, err, `no agent "nobody"`)

	ev, err := ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Equal(t, state.Working, ev.Status)
	require.True(t, rec.StatusSince.Equal(ev.Since))
	require.Zero(t, ev.Commits, "a working agent: its record alone")
	require.Empty(t, ev.Tip)

	rec.Status = state.Idle
	save()
	ev, err = ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Zero(t, ev.Commits)
	require.Empty(t, ev.OffBranch)
	require.Equal(t, start, ev.Tip)

	require.NoError(t, os.WriteFile(filepath.Join(wt, "a.txt"), []byte("a\n"), 0o644))
	ev, err = ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, ev.Uncommitted)

	gitIn(t, wt, "add", "a.txt")
	gitIn(t, wt, "commit", "-q", "-m", "add a")
	rec.Done = &state.DoneSignal{}
	save()
	ev, err = ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Equal(t, 1, ev.Commits)
	require.False(t, ev.Unchanged)
	require.Empty(t, ev.Uncommitted)
	require.NotNil(t, ev.Done)
	require.Equal(t, gitIn(t, wt, "rev-parse", "HEAD"), ev.Tip)
	require.Equal(t, gitIn(t, wt, "rev-parse", "HEAD^{tree}"), ev.Tree)

	gitIn(t, wt, "switch", "-q", "--detach")
	ev, err = ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Contains(t, ev.OffBranch, "detached")
}

// A task's checks on a host run in its agent's worktree on the tree
// asked for: what they write is told apart from the agent's work, a
// failure says what failed, and a HEAD that moved runs nothing.
func TestRunChecksThereToldApartFromTheAgentsWork(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644))
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "init")
	root := gitIn(t, repo, "rev-parse", "--show-toplevel")
	rec := &state.Record{Name: "g-a", Repo: root, Path: repo, Branch: "main", Base: "main", Status: state.Idle}
	require.NoError(t, state.ForRepo(root).Update(func(f *state.File) error { f.Records[rec.Name] = rec; return nil }))
	tree := gitIn(t, repo, "rev-parse", "HEAD^{tree}")

	res, err := RunChecks(repo, ChecksSpec{Name: "g-a", Tree: tree, Commands: [][]string{{"touch", "build.out"}}}, time.Minute)
	require.NoError(t, err)
	require.True(t, res.Passed)
	require.Contains(t, res.Wrote, "build.out", "what the checks wrote is their output")
	ev, err := ReadEvidence(repo, EvidenceSpec{Name: "g-a", Wrote: res.Wrote})
	require.NoError(t, err)
	require.Empty(t, ev.Uncommitted, "the checks' output is not the agent's work")
	ev, err = ReadEvidence(repo, EvidenceSpec{Name: "g-a"})
	require.NoError(t, err)
	require.Equal(t, []string{"build.out"}, ev.Uncommitted)

	res, err = RunChecks(repo, ChecksSpec{Name: "g-a", Tree: tree, Commands: [][]string{{"test", "-f", "nope"}}}, time.Minute)
	require.NoError(t, err)
	require.False(t, res.Passed)
	require.Contains(t, res.Output, "$ test -f nope")

	_, err = RunChecks(repo, ChecksSpec{Name: "g-a", Tree: "0000", Commands: [][]string{{"touch", "never"}}}, time.Minute)
	require.ErrorContains(t, err, "moved")
	_, statErr := os.Stat(filepath.Join(repo, "never"))
	require.True(t, os.IsNotExist(statErr), "nothing ran on another tree")
}
