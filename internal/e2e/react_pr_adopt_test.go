package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// owt pr asks gh first (one gh pr view of the branch) and pushes nothing
// until gh has answered: gh not logged in or failing leaves the remote
// alone; an open pull request of the branch is adopted (the branch is
// pushed to it); a merged or closed one gets a new pull request.

// notLoggedIn is real gh 2.23's answer without a login: its text, exit 4.
var notLoggedIn = fixture.GhFixture{Args: []string{"pr"}, Exit: 4,
	Stderr: "To get started with GitHub CLI, please run:  gh auth login\n" +
		"Alternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.\n"}

// shellWithCommits makes a worktree without an agent whose branch has
// n commits beyond main, and returns its branch.
func (e *Env) shellWithCommits(repo, name string, n int) string {
	e.t.Helper()
	it := e.shell(repo, name)
	for i := range n {
		e.commitIn(it.Path, "feature"+itoa(i)+".txt", "feature\n", "feature part "+itoa(i))
	}
	return it.Branch
}

// remoteHas reports whether the bare remote has branch.
func (e *Env) remoteHas(bare, branch string) bool {
	return e.Git(bare, "for-each-ref", "refs/heads/"+branch) != ""
}

func TestPRWithGhNotLoggedInOrFailingPushesNothing(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	branch := e.shellWithCommits(repo, "feat", 1)

	e.SetGh(notLoggedIn, createFixture)
	r := e.Owt(repo, "pr", "feat")
	require.Equal(t, 1, r.Code, r.Stderr)
	requireOneLineError(t, r, "gh is not logged in (run: gh auth login); nothing was pushed")
	require.False(t, e.remoteHas(bare, branch), "nothing was pushed")
	require.Nil(t, e.prItem(repo, "feat").PR, "no PR recorded")
	require.Empty(t, e.GhCalls("pr", "create"))
	require.Len(t, e.GhCalls("pr", "list", "--head", branch), 1, "one gh call")

	// Any other gh failure stops before the push too, with gh's words.
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Exit: 1,
		Stderr: "none of the git remotes configured for this repository point to a known GitHub host. To tell gh about a new GitHub host, please use `gh auth login`\n"},
		createFixture)
	r = e.Owt(repo, "pr", "feat")
	require.Equal(t, 1, r.Code, r.Stderr)
	requireOneLineError(t, r, "none of the git remotes configured for this repository point to a known GitHub host")
	require.Contains(t, r.Stderr, "nothing was pushed")
	require.False(t, e.remoteHas(bare, branch), "nothing was pushed")
	require.Nil(t, e.prItem(repo, "feat").PR)
	require.Empty(t, e.GhCalls("pr", "create"))

	// gh not installed: the same, before any push.
	bin := filepath.Join(e.Root, "nogh")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, prog := range []string{"git", "tmux", "sh"} {
		path, err := exec.LookPath(prog)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(path, filepath.Join(bin, prog)))
	}
	path := e.Var("PATH")
	e.Set("PATH", bin)
	r = e.Owt(repo, "pr", "feat")
	e.Set("PATH", path)
	require.Equal(t, 1, r.Code, r.Stderr)
	requireOneLineError(t, r, "gh is not installed")
	require.Contains(t, r.Stderr, "nothing was pushed")
	require.False(t, e.remoteHas(bare, branch), "nothing was pushed")
	require.Nil(t, e.prItem(repo, "feat").PR)
}

func TestPRAdoptsTheOpenPullRequestOfTheBranch(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	branch := e.shellWithCommits(repo, "feat", 2)
	// The pull request was opened by hand from the first commit.
	e.Git(repo, "push", "-q", bare, branch+"~1:refs/heads/"+branch)
	old := e.Git(bare, "rev-parse", branch)
	view := strings.Replace(prView(old, "REVIEW_REQUIRED"), `"isDraft":false`, `"isDraft":true`, 1)
	view = strings.Replace(view, `"isDraft":true`, `"isDraft":true,"baseRefName":"main"`, 1)
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: prList(view)}, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view})

	// Asked for another base than the open pull request's: refused before
	// anything is pushed.
	e.Git(repo, "branch", "release", "main")
	r := e.Owt(repo, "pr", "feat", "--base", "release")
	require.Equal(t, 1, r.Code, r.Stderr)
	requireOneLineError(t, r, "pull request #7 of "+branch+" is open against main, not release")
	require.Equal(t, old, e.Git(bare, "rev-parse", branch), "nothing was pushed")
	require.Nil(t, e.prItem(repo, "feat").PR)

	out := e.MustOwt(repo, "pr", "feat")
	require.Equal(t, "adopted pull request #7 for feat: https://github.com/o/app/pull/7\n", out)
	head := e.Git(repo, "rev-parse", branch)
	require.Equal(t, head, e.Git(bare, "rev-parse", branch), "the PR got the new commits")
	require.Empty(t, e.GhCalls("pr", "create"), "no second pull request")
	it := e.prItem(repo, "feat")
	require.NotNil(t, it.PR)
	require.Equal(t, 7, it.PR.Number)
	require.Equal(t, "OPEN", it.PR.State)
	require.Equal(t, "https://github.com/o/app/pull/7", it.PR.URL)
	require.Equal(t, head, it.PR.Head)
	require.Contains(t, e.MustOwt(repo, "list"), "PR #7 open draft")

	// Recorded open: owt pr refuses as before, without asking gh.
	views := len(e.GhCalls("pr", "view", branch))
	r = e.Owt(repo, "pr", "feat")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "#7 open already")
	require.Len(t, e.GhCalls("pr", "view", branch), views)

	// An open pull request whose branch has commits the worktree lacks:
	// never forced, nothing recorded.
	other := e.shellWithCommits(repo, "other", 1)
	theirs := e.Git(repo, "commit-tree", "main^{tree}", "-p", "main", "-m", "someone else's commit")
	e.Git(repo, "push", "-q", bare, theirs+":refs/heads/"+other)
	r = e.Owt(repo, "pr", "other")
	require.Equal(t, 1, r.Code, r.Stderr)
	requireOneLineError(t, r, "pull request #7 is open for "+other+" already")
	require.Equal(t, theirs, e.Git(bare, "rev-parse", other), "not forced")
	require.Nil(t, e.prItem(repo, "other").PR)
}

func TestPRAfterAMergedPullRequestOpensANewOne(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	branch := e.shellWithCommits(repo, "feat", 1)
	merged := strings.Replace(strings.Replace(prView("0123abc", "APPROVED"), `"state":"OPEN"`, `"state":"MERGED"`, 1), `"number":7`, `"number":5`, 1)
	merged = strings.Replace(merged, "pull/7", "pull/5", 1)
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: prList(merged)},
		createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("x", "")})

	var got struct {
		Number  int    `json:"number"`
		URL     string `json:"url"`
		State   string `json:"state"`
		Adopted *bool  `json:"adopted"`
	}
	out := e.MustOwt(repo, "pr", "feat", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Equal(t, 7, got.Number)
	require.Equal(t, "https://github.com/o/app/pull/7", got.URL)
	require.Equal(t, "OPEN", got.State)
	require.NotNil(t, got.Adopted, out)
	require.False(t, *got.Adopted)
	require.Len(t, e.GhCalls("pr", "create"), 1, "a new pull request")
	require.Equal(t, e.Git(repo, "rev-parse", branch), e.Git(bare, "rev-parse", branch))
	require.Equal(t, 7, e.prItem(repo, "feat").PR.Number)
}
