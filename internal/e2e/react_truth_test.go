package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// Reactions and PRs that say only what is true: a conflict is one cause
// however often its base moves for other reasons, gh not logged in is
// said where the user looks and retried, and what gh or a reviewer says
// reaches the agent and the terminal bounded.

// A conflict's cause is the conflicting files and the commits that touch
// them: main moving on for unrelated reasons, or the agent committing
// other work, sends nothing new (and burns no attempt); a new commit on
// the conflicting file, on main or the agent's own failed try, does. (The
// first message is held, a client on the agent's pane, while that is
// judged: a conflict the agent lets stand through a turn of its own is
// the next attempt, TestAConflictTheAgentIgnoresNeedsYouAfterMaxAttempts.)
func TestAConflictIsSentOnceWhileItsBaseMovesForUnrelatedReasons(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[reactions.conflict]\nmax_attempts = 5\n")
	e.startAgent(repo, "clash", "Edit the readme\n!write README.md\n!commit agent readme")
	client, _ := e.attach(e.Find(repo, "clash").Session)
	e.commitIn(repo, "README.md", "# main's readme\n", "main rewrites the readme")
	e.Eventually(60*time.Second, "the conflict is queued for the agent", func() bool {
		st, _, ok := e.conflictMessage("clash")
		return ok && st == "queued"
	})

	for i := range 3 {
		head := e.commitIn(repo, "unrelated"+itoa(i)+".txt", "news\n", "unrelated news "+itoa(i))
		e.Eventually(60*time.Second, "main's move "+itoa(i)+" is judged", func() bool {
			return strings.Contains(e.prItem(repo, "clash").Reactions["conflict"].Seen, head)
		})
	}
	require.Len(t, e.outboxMessages("clash"), 1, "the same conflict is sent once")
	it := e.prItem(repo, "clash")
	require.Empty(t, it.NeedsYou)
	require.Equal(t, 1, it.Reactions["conflict"].Attempts)

	branch := e.Find(repo, "clash").Branch
	e.MustOwt(repo, "send", "clash", "!write notes.txt\n!commit other work")
	e.Eventually(60*time.Second, "the agent's other work is judged", func() bool {
		head := e.Git(repo, "rev-parse", branch)
		return e.Find(repo, "clash").Status == "idle" && strings.HasPrefix(e.prItem(repo, "clash").Reactions["conflict"].Seen, head)
	})
	require.Len(t, e.outboxMessages("clash"), 1, "other work is not news")
	require.Equal(t, 1, e.prItem(repo, "clash").Reactions["conflict"].Attempts)

	// The user leaves: the first message goes; a new commit on the
	// conflicting file is news.
	e.Tmux("detach-client", "-t", client)
	e.Eventually(60*time.Second, "the first message reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) >= 1 })
	e.commitIn(repo, "README.md", "# main's readme, again\n", "main rewrites the readme again")
	e.Eventually(60*time.Second, "the new conflicting commit reaches the agent", func() bool {
		for _, p := range e.promptsWith("clash", "now conflicts with main") {
			if strings.Contains(p, "main rewrites the readme again") {
				return true
			}
		}
		return false
	})

	// The agent's try at the file that still conflicts is a new cause (the
	// turns it had on the same one are counted too: the signature says
	// which cause was acted on last).
	before := e.prItem(repo, "clash").Reactions["conflict"].Signature
	e.MustOwt(repo, "send", "clash", "!write README.md a second try\n!commit a failed try")
	e.Eventually(60*time.Second, "the failed try is a new cause", func() bool {
		return e.prItem(repo, "clash").Reactions["conflict"].Signature != before
	})
}

// ghLoggedOut is gh's answer when it is not logged in (exit 4).
var ghLoggedOut = fixture.GhFixture{Args: []string{"pr", "view"}, Stderr: "To get started with GitHub CLI, please run:  gh auth login\n", Exit: 4}

// gh logging out does not turn the PR reactions off for good: owt list,
// the control plane and owt doctor say the PR state is stale and why, the
// monitor tries again with backoff, and once gh answers the reactions run
// again without a restart.
func TestGhNotLoggedInIsSaidWhereYouLookAndRetriedUntilGhAnswers(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.soloWithPR(repo, prView("aaaaaaa1", "", checkRun("test", "IN_PROGRESS", "", 101)))
	e.Eventually(60*time.Second, "the first poll", func() bool {
		pr := e.prItem(repo, "solo").PR
		return pr != nil && pr.Checks == "pending"
	})
	require.Equal(t, 0, e.Owt(repo, "doctor").Code, "all good while gh answers")

	loggedOut := time.Now()
	e.SetGh(ghLoggedOut)
	e.Eventually(60*time.Second, "owt list says the PR state is stale and why", func() bool {
		return strings.Contains(e.MustOwt(repo, "list"), "PR #7 open, checks pending, stale: gh is not logged in")
	})
	r := e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "pr-state-stale: the pull request state of solo is stale: gh is not logged in (run: gh auth login)")
	p := e.pane(repo, owtBin, "popup", "control")
	require.Contains(t, e.WaitScreen(p, "stale: gh is not logged in"), "PR #7 open")
	e.keys(p, "Escape")
	e.waitClosed(p)

	failed := func() []fixture.GhCall {
		var out []fixture.GhCall
		for _, c := range e.GhCalls("pr", "view") {
			if c.At.After(loggedOut) {
				out = append(out, c)
			}
		}
		return out
	}
	e.Eventually(60*time.Second, "gh is asked again", func() bool { return len(failed()) >= 3 })
	fails := failed()
	require.GreaterOrEqual(t, fails[2].At.Sub(fails[1].At), 2*time.Second, "backed off: each wait twice the one before, from poll_interval (1s)")

	e.SetGh(fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestAlpha\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101))})
	e.Eventually(90*time.Second, "the CI reaction runs again without a monitor restart", func() bool { return len(e.prItem(repo, "solo").NeedsYou) == 1 })
	require.NotContains(t, e.MustOwt(repo, "list"), "stale")
	require.Len(t, logLinesWith(e.LogLines("monitor"), "gh is not logged in"), 1, "one warning in the log")
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

// gh's stderr in owt pr's error is one short line, however long gh's is.
func TestOwtPRSaysGhsErrorInOneShortLine(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.shellWithCommits(repo, "feat", 1)
	huge := "GraphQL: " + strings.Repeat("x", 200<<10) + "\nsecond line\n"
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stderr: huge, Exit: 1})

	r := e.Owt(repo, "pr", "feat")
	requireOneLineError(t, r, "gh pr list: GraphQL: xxx")
	require.Contains(t, r.Stderr, "nothing was pushed")
	require.Less(t, len(r.Stderr), 400, "one short line")
}

// gh's text about a pull request is kept the same way everywhere: control
// characters dropped, in owt pr --json as in owt list --json (before and
// after the monitor's poll).
func TestPRFieldsInJSONAreTheSameCleanTextEverywhere(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "q1", "--", "My own work")
	e.commitIn(e.Find(repo, "q1").Path, "mine.txt", "mine\n", "my own commit")
	view := strings.Replace(prView("aaaaaaa1", ""), "pull/7", "pull/7\\u001b]0;TITLE\\u0007", 1)
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: prList(view)}, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view})

	var opened struct{ URL string }
	out := e.MustOwt(repo, "pr", "q1", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &opened), out)
	clean := "https://github.com/o/app/pull/7]0;TITLE"
	require.Equal(t, clean, opened.URL, "owt pr --json")
	require.Equal(t, clean, e.prItem(repo, "q1").PR.URL, "owt list --json as recorded")
	e.Eventually(60*time.Second, "the monitor polled it", func() bool { return len(e.GhCalls("pr", "view")) >= 2 })
	require.Equal(t, clean, e.prItem(repo, "q1").PR.URL, "owt list --json after a poll")
}
