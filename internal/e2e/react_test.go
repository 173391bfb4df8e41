package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// Reactions: failing checks, failing CI and review comments go back to
// the agent that wrote the code through the outbox, once per cause, with
// attempts counted and kept, escalating to the user. gh is the fake of
// testdata/fakegh; the remote is a bare repository on disk.

func TestPRPushesTheBranchOpensAPullRequestAndListShowsIt(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.startAgent(repo, "feat", "Add a feature\n!write feature.txt\n!commit add feature")

	r := e.Owt(repo, "pr", "feat")
	require.NotEqual(t, 0, r.Code, "no remote: no PR")
	require.Contains(t, r.Stderr, "no remote")
	require.Empty(t, e.GhCalls("pr", "create"), "gh is not asked without a pushed branch")

	bare := e.withRemote(repo)
	e.SetGh(noPRYet, createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("x", "", checkRun("test", "IN_PROGRESS", "", 1))})
	out := e.MustOwt(repo, "pr", "feat", "--draft")
	require.Contains(t, out, "opened pull request #7 for feat: https://github.com/o/app/pull/7")

	branch := e.Find(repo, "feat").Branch
	require.Equal(t, e.Git(repo, "rev-parse", branch), e.Git(bare, "rev-parse", branch), "the branch was pushed")
	calls := e.GhCalls("pr", "create")
	require.Len(t, calls, 1)
	argv := strings.Join(calls[0].Argv, " ")
	require.Contains(t, argv, "--head "+branch+" --base main --title Add a feature")
	require.Contains(t, argv, "--draft")
	require.Contains(t, argv, "- add feature", "the body lists the commits")

	it := e.prItem(repo, "feat")
	require.NotNil(t, it.PR)
	require.Equal(t, 7, it.PR.Number)
	require.Equal(t, "OPEN", it.PR.State)
	e.Eventually(30*time.Second, "the monitor polls the PR", func() bool {
		pr := e.prItem(repo, "feat").PR
		return pr != nil && pr.Checks == "pending"
	})
	require.Contains(t, e.MustOwt(repo, "list"), "PR #7 open, checks pending")

	r = e.Owt(repo, "pr", "feat")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "#7 open already")
}

func TestCIFailureGoesToTheAgentOncePerHeadAndNeedsYouAfterMaxAttempts(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[reactions.ci_failed]\nmax_attempts = 2\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	logA := fixture.GhFixture{Args: []string{"run", "view", "101", "--log-failed"}, Stdout: "test\tRun go test\t--- FAIL: TestAlpha\ntest\tRun go test\tFAIL\texit status 1\n"}
	e.SetGh(createFixture, logA, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101))})
	e.agentWithPR(repo, "ci")

	e.Eventually(60*time.Second, "the CI failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 1 })
	msg := e.promptsWith("ci", "CI fails")[0]
	require.Contains(t, msg, "pull request #7")
	require.Contains(t, msg, "✗ test (CI) https://github.com/o/app/actions/runs/101/job/1")
	require.Contains(t, msg, "--- FAIL: TestAlpha")

	// Polled again on the same head: nothing more, not even its log.
	polls := len(e.GhCalls("pr", "view"))
	e.Eventually(30*time.Second, "two more polls", func() bool { return len(e.GhCalls("pr", "view")) >= polls+2 })
	require.Len(t, e.promptsWith("ci", "CI fails"), 1, "the same cause is sent once")
	require.Len(t, e.GhCalls("run", "view"), 1, "its log is read once")

	// Head B fails: a new cause, a new message.
	e.SetGh(fixture.GhFixture{Args: []string{"run", "view", "102"}, Stdout: "--- FAIL: TestBeta\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("bbbbbbb2", "", checkRun("test", "COMPLETED", "FAILURE", 102))})
	e.Eventually(60*time.Second, "the second failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 2 })
	require.Contains(t, e.promptsWith("ci", "CI fails")[1], "--- FAIL: TestBeta")

	// Head C fails with both attempts used: the user is needed, once told.
	e.SetGh(fixture.GhFixture{Args: []string{"run", "view", "103"}, Stdout: "--- FAIL: TestGamma\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("ccccccc3", "", checkRun("test", "COMPLETED", "FAILURE", 103))})
	e.Eventually(60*time.Second, "ci needs you", func() bool { return len(e.prItem(repo, "ci").NeedsYou) == 1 })
	it := e.prItem(repo, "ci")
	require.Contains(t, it.NeedsYou[0], "ci_failed: 2 attempt(s) used, still failing: test failed on ccccccc")
	require.Equal(t, 2, it.Reactions["ci_failed"].Attempts)
	require.Contains(t, e.MustOwt(repo, "list"), "needs you: ci_failed")
	e.Eventually(10*time.Second, "the status bar names it", func() bool {
		return strings.Contains(e.Tmux("show-options", "-gv", "@owt-status-line"), "▲ ci")
	})

	// Sticky: more polls, a new head failing, still the user's; no more
	// messages and one notification.
	e.SetGh(fixture.GhFixture{Args: []string{"run", "view", "104"}, Stdout: "--- FAIL: TestDelta\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("ddddddd4", "", checkRun("test", "COMPLETED", "FAILURE", 104))})
	e.Eventually(30*time.Second, "the new head judged", func() bool { return len(e.GhCalls("run", "view", "104")) == 1 })
	polls = len(e.GhCalls("pr", "view"))
	e.Eventually(30*time.Second, "two more polls", func() bool { return len(e.GhCalls("pr", "view")) >= polls+2 })
	require.Len(t, e.prItem(repo, "ci").NeedsYou, 1)
	require.Len(t, e.promptsWith("ci", "CI fails"), 2)
	require.Len(t, logLinesWith(e.LogLines("monitor"), "ci needs you (ci_failed"), 1, "one notification")

	// Passing twice in a row clears it.
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("eeeeeee5", "", checkRun("test", "COMPLETED", "SUCCESS", 105))})
	e.Eventually(60*time.Second, "ci no longer needs you", func() bool { return len(e.prItem(repo, "ci").NeedsYou) == 0 })
	require.Equal(t, 0, e.prItem(repo, "ci").Reactions["ci_failed"].Attempts)
}

func TestPendingCIIsPolledOncePerIntervalAndSendsNothing(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "QUEUED", "", 1))})
	e.agentWithPR(repo, "wait")

	// The first call is owt pr's own look for an open pull request; the
	// monitor's first poll may follow it at once.
	e.Eventually(30*time.Second, "four polls", func() bool { return len(e.GhCalls("pr", "view")) >= 5 })
	calls := e.GhCalls("pr", "view")
	for i := 2; i < len(calls); i++ {
		require.GreaterOrEqual(t, calls[i].At.Sub(calls[i-1].At), 900*time.Millisecond, "one poll per interval (1s)")
	}
	require.Empty(t, e.GhCalls("run", "view"))
	require.Len(t, e.Prompts("wait"), 1, "only the task: pending sends nothing")
	require.Equal(t, "pending", e.prItem(repo, "wait").PR.Checks)
}

func TestGhNotLoggedInWarnsOnceAndTheChecksReactionGoesOn(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[checks]\ncommands = [[\"sh\", \"-c\", \"echo lint says no; exit 3\"]]\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(noPRYet, createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stderr: "To get started with GitHub CLI, please run:  gh auth login\n", Exit: 4})
	e.startAgent(repo, "auth", "Add a feature\n!write feature.txt\n!commit add feature")
	e.MustOwt(repo, "pr", "auth")
	e.MustOwt(repo, "send", "auth", "!write more.txt\n!commit more")

	e.Eventually(60*time.Second, "the failing checks reach the agent", func() bool { return len(e.promptsWith("auth", "checks fail")) >= 1 })
	require.Len(t, logLinesWith(e.LogLines("monitor"), "gh is not logged in"), 1, "one warning")
	require.Contains(t, e.MustOwt(repo, "list"), "stale: gh is not logged in", "its PR state is said to be stale (retried with backoff)")
}

func TestFailingChecksGoOncePerTreeThroughASwallowedEnterAndPassAfterTheFix(t *testing.T) {
	e := NewEnv(t)
	e.userConfig("[checks]\ncommands = [[\"sh\", \"-c\", \"test -f fixed.txt || { printf '\\\\033[31mmissing fixed.txt\\\\033[0m\\\\n'; exit 3; }\"]]\n")
	repo := e.NewRepo("app")
	// The task commits a.txt; the agent drops the Enter of the first
	// message once (owt presses it again), and that message makes it
	// write notes (same HEAD tree: no new message).
	e.startAgent(repo, "chk", "Add a\n!write a.txt\n!commit add a\n!swallow-enter 1\n!on-next !write notes.txt")

	e.Eventually(60*time.Second, "the failing checks reach the agent", func() bool { return len(e.promptsWith("chk", "checks fail")) == 1 })
	msg := e.promptsWith("chk", "checks fail")[0]
	require.Contains(t, msg, "$ sh -c")
	require.Contains(t, msg, "exit code 3")
	require.Contains(t, msg, "missing fixed.txt")
	require.NotContains(t, msg, "\x1b", "control characters are stripped")
	require.Equal(t, 1, e.agentEvents("chk", "swallowed"), "the swallowed Enter was pressed again")
	e.Eventually(30*time.Second, "its next turn is over", func() bool {
		return len(e.Prompts("chk")) == 2 && e.Find(repo, "chk").Status == "idle"
	})
	e.MustOwt(repo, "send", "chk", "!write fixed.txt\n!commit fix the check")
	e.Eventually(60*time.Second, "the checks pass", func() bool {
		re := e.prItem(repo, "chk").Reactions["checks_failed"]
		return re.Passes == 1
	})
	it := e.prItem(repo, "chk")
	require.Equal(t, 1, it.Reactions["checks_failed"].Attempts)
	require.Empty(t, it.NeedsYou)
	require.Len(t, e.promptsWith("chk", "checks fail"), 1, "no more messages")
}

func TestChangesRequestedSendsEveryCommentWithPathAndLine(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	view := `{"number":7,"url":"https://github.com/o/app/pull/7","state":"OPEN","headRefOid":"aaaaaaa1",` +
		`"reviewDecision":"CHANGES_REQUESTED","statusCheckRollup":[],"latestReviews":[` +
		`{"id":"PRR_1","author":{"login":"rita"},"state":"CHANGES_REQUESTED","body":"Two things."}]}`
	comments := `[{"id":1,"path":"feature.txt","line":3,"body":"Name this better.","user":{"login":"rita"}},` +
		`{"id":2,"path":"main.go","line":0,"original_line":12,"body":"Handle the error.","user":{"login":"rita"}},` +
		`{"id":3,"path":"main.go","line":12,"body":"agreed","in_reply_to_id":2,"user":{"login":"bob"}}]`
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view},
		fixture.GhFixture{Args: []string{"api", "repos/{owner}/{repo}/pulls/7/comments"}, Stdout: comments})
	e.agentWithPR(repo, "rev")

	e.Eventually(60*time.Second, "the review reaches the agent", func() bool { return len(e.promptsWith("rev", "changes were requested")) == 1 })
	msg := e.promptsWith("rev", "changes were requested")[0]
	require.Contains(t, msg, "@rita requested changes: Two things.")
	require.Contains(t, msg, "- feature.txt:3 @rita: Name this better.")
	require.Contains(t, msg, "- main.go:12 @rita: Handle the error.")
	require.NotContains(t, msg, "agreed", "replies are not new requests")
	require.Equal(t, "CHANGES_REQUESTED", e.prItem(repo, "rev").PR.Review)
	require.Len(t, e.GhCalls("api"), 1)
}

func logLinesWith(lines []string, text string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, text) {
			out = append(out, l)
		}
	}
	return out
}

func TestABranchThatTurnsConflictingTellsItsAgentTheFilesAndTheOtherSide(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startAgent(repo, "clash", "Edit the readme\n!write README.md\n!commit agent readme")
	e.commitIn(repo, "README.md", "# main's readme\n", "main rewrites the readme")
	e.MustOwt(repo, "send", "clash", "!write other.txt\n!commit other")

	e.Eventually(60*time.Second, "the conflict reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) == 1 })
	msg := e.promptsWith("clash", "now conflicts with main")[0]
	require.Contains(t, msg, "  README.md")
	require.Contains(t, msg, "main rewrites the readme", "the other side")
}

// An agent that sits idle is told when its base moves into a conflict with
// it, without a new turn of its own (the prediction runs again every poll
// interval).
func TestAnIdleAgentIsToldWhenItsBaseMovesIntoAConflict(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"2s\"\n")
	e.startAgent(repo, "idle", "Edit the readme\n!write README.md\n!commit agent readme")
	e.WaitStatus(repo, "idle", "idle", 30*time.Second)
	e.Eventually(30*time.Second, "its idle turn was judged before main moves (no new turn will come)", func() bool {
		return e.prItem(repo, "idle").Reactions["conflict"].Seen != ""
	})
	e.commitIn(repo, "README.md", "# main's readme\n", "main rewrites the readme")

	e.Eventually(30*time.Second, "the conflict reaches the idle agent", func() bool { return len(e.promptsWith("idle", "now conflicts with main")) == 1 })
}

// A review with a huge body and many comments reaches the agent bounded
// like a CI failure (about 8 KiB), with the pull request's URL for the
// rest.
func TestAHugeReviewReachesTheAgentBoundedWithItsURL(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	body := strings.Repeat("This is far too long. ", 3000) // 66 KB
	view := `{"number":7,"url":"https://github.com/o/app/pull/7","state":"OPEN","headRefOid":"aaaaaaa1",` +
		`"reviewDecision":"CHANGES_REQUESTED","statusCheckRollup":[],"latestReviews":[` +
		`{"id":"PRR_1","author":{"login":"rita"},"state":"CHANGES_REQUESTED","body":"` + body + `"}]}`
	var comments []string
	for i := range 60 {
		comments = append(comments, `{"id":`+itoa(i+1)+`,"path":"feature.txt","line":`+itoa(i+1)+`,"body":"`+strings.Repeat("nit ", 250)+`","user":{"login":"rita"}}`)
	}
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view},
		fixture.GhFixture{Args: []string{"api", "repos/{owner}/{repo}/pulls/7/comments"}, Stdout: "[" + strings.Join(comments, ",") + "]"})
	e.agentWithPR(repo, "rev")

	e.Eventually(60*time.Second, "the review reaches the agent", func() bool { return len(e.promptsWith("rev", "changes were requested")) == 1 })
	msg := e.promptsWith("rev", "changes were requested")[0]
	require.LessOrEqual(t, len(msg), 9<<10, "bounded like a CI failure")
	require.Contains(t, msg, "@rita requested changes: This is far too long.")
	require.Contains(t, msg, "https://github.com/o/app/pull/7", "the URL for the rest")
}
