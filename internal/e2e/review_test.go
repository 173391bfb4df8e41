package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// The AI review gate: owt merge/ship --review (or [review] enabled) runs
// the review tool headless — here the fake agent's headless mode, whose
// answer is OWT_FAKE_ANSWER — over what would land, and a fail or no
// verdict stops the landing with nothing changed unless --accept-review.

const (
	passAnswer = "Looks fine to me.\n```json\n{\"verdict\": \"pass\", \"findings\": []}\n```\n"
	failAnswer = "Review done.\n{\"verdict\":\"fail\",\"findings\":[" +
		"{\"file\":\"calc.go\",\"line\":3,\"severity\":\"high\",\"message\":\"divides by zero when n is 0\"}," +
		"{\"file\":\"calc.go\",\"line\":7,\"severity\":\"low\",\"message\":\"odd name \\u001b]0;pwned\\u0007here\"}]}\n"
)

// reviewWorld is a repo whose user config names claude (the fake) as the
// review tool, and a shell worktree "calc" with one commit.
func reviewWorld(t *testing.T, config string) (*Env, string, Item) {
	e := NewEnv(t)
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", "[review]\ntool = \"claude\"\n"+config)
	repo := e.NewRepo("app")
	it := e.shell(repo, "calc")
	e.commitIn(it.Path, "calc.go", "package calc\n\nfunc Div(a, n int) int { return a / n }\n", "add Div")
	return e, repo, it
}

// answer writes the headless tool's answer and returns the env setting it.
func (e *Env) answer(name, text string) []string {
	path := filepath.Join(e.Root, name)
	require.NoError(e.t, os.WriteFile(path, []byte(text), 0o644))
	return []string{"OWT_FAKE_ANSWER=" + path}
}

// reviews are the headless runs of the review tool so far.
func (e *Env) reviews() []fixture.AgentEvent {
	var out []fixture.AgentEvent
	for _, ev := range e.Events() {
		if ev.Event == "start" && ev.Mode == "headless" {
			out = append(out, ev)
		}
	}
	return out
}

func TestReviewPassIsShownByCheckAndTheMergeGoesOnReviewedOnce(t *testing.T) {
	e, repo, it := reviewWorld(t, "")
	env := e.answer("pass.txt", passAnswer)

	// Asked from inside an agent's session (OWT_NAME and OWT_REPO set).
	r := e.OwtIn(repo, append(env, "OWT_NAME=calc", "OWT_REPO="+repo), "", "check", "calc", "--review")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "review:      pass (claude, 0 finding(s))")
	require.Contains(t, r.Stderr, "reviewing calc with claude")
	runs := e.reviews()
	require.Len(t, runs, 1)
	require.Equal(t, []string{"-p"}, runs[0].Argv[:1], "claude's headless mode")
	prompt := runs[0].Argv[len(runs[0].Argv)-1]
	require.Len(t, runs[0].Argv, 2, "the prompt is one argv element")
	require.Contains(t, prompt, "Work on calc", "the task")
	require.Contains(t, prompt, "+func Div(a, n int) int { return a / n }", "the diff against the base")
	// Away from the worktree and its hooks, as nobody's agent, in a place
	// of its own that is gone afterwards.
	require.NotContains(t, runs[0].Cwd, it.Path)
	require.NotContains(t, runs[0].Cwd, repo)
	require.True(t, strings.HasPrefix(runs[0].Cwd, e.Var("TMPDIR")), runs[0].Cwd)
	require.NoDirExists(t, runs[0].Cwd)
	require.Empty(t, runs[0].Env["OWT_NAME"])
	require.Empty(t, runs[0].Env["OWT_REPO"])

	// The same tree again: the cached verdict, no second run.
	r = e.OwtIn(repo, env, "", "check", "calc", "--review", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var rep struct {
		Name   string
		Ahead  int
		Review struct {
			Verdict  string
			Tool     string
			Cached   bool
			Findings []any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rep), r.Stdout)
	require.Equal(t, "calc", rep.Name)
	require.Equal(t, 1, rep.Ahead)
	require.Equal(t, "pass", rep.Review.Verdict)
	require.Equal(t, "claude", rep.Review.Tool)
	require.True(t, rep.Review.Cached)
	require.Empty(t, rep.Review.Findings)

	out := e.MustOwt(repo, "merge", "calc", "--review", "--yes")
	require.Contains(t, out, "review: pass (claude, 0 finding(s), cached)")
	require.Contains(t, out, "merged feat/calc into main")
	require.Len(t, e.reviews(), 1, "an unchanged branch is reviewed once")
	require.Contains(t, e.Git(repo, "show", "main:calc.go"), "func Div")
	e.requireGone(repo, it)
}

func TestReviewFailRefusesTheMergeWithItsFindingsUntilAccepted(t *testing.T) {
	e, repo, it := reviewWorld(t, "enabled = true\n")
	env := e.answer("fail.txt", failAnswer)
	mainBefore, branchBefore := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", it.Branch)
	repoBefore := digest(t, repo)

	// [review] enabled: merge reviews without being asked.
	r := e.OwtIn(repo, env, "", "merge", "calc", "--yes")
	require.Equal(t, 1, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "owt: review: fail (claude, 2 finding(s))")
	require.Contains(t, r.Stderr, "[high] calc.go:3: divides by zero when n is 0")
	require.Contains(t, r.Stderr, "[low] calc.go:7: odd name ]0;pwnedhere", "the tool's text drawn inert")
	require.NotContains(t, r.Stderr, "\x1b")
	require.Contains(t, r.Stderr, "nothing was merged: fix them, or go on: 'owt merge calc --accept-review'")
	require.NotContains(t, r.Stdout, "merged")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"), "main unchanged")
	require.Equal(t, branchBefore, e.Git(repo, "rev-parse", it.Branch), "the branch unchanged")
	require.Equal(t, repoBefore, digest(t, repo), "the user's checkout untouched")
	e.requireKept(repo, it)

	// owt check says so too, from the cache.
	r = e.OwtIn(repo, env, "", "check", "calc")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "review:      fail (claude, 2 finding(s), cached)")
	require.Contains(t, r.Stdout, "[high] calc.go:3: divides by zero when n is 0")
	require.Contains(t, r.Stdout, "! the AI review fails: merge and ship refuse without --accept-review")

	// Ship with new uncommitted work reviews what it would land: the new
	// tree, and refuses without committing.
	e.WriteFile(it.Path, "calc_test.go", "package calc\n")
	r = e.OwtIn(repo, env, "", "ship", "calc", "--yes")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "nothing was shipped")
	require.Len(t, e.reviews(), 2, "the new tree is reviewed")
	require.Contains(t, e.reviews()[1].Argv[1], "+package calc", "with the uncommitted file in the diff")
	require.Equal(t, branchBefore, e.Git(repo, "rev-parse", it.Branch), "no commit was made")
	require.Equal(t, "?? calc_test.go", e.Git(it.Path, "status", "--porcelain"))
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))

	// The user's yes: it ships, and says what the review said.
	r = e.OwtIn(repo, env, "", "ship", "calc", "--yes", "--accept-review", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var landed struct {
		Removed bool
		Review  struct {
			Verdict  string
			Cached   bool
			Findings []struct{ File, Message string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &landed), r.Stdout)
	require.True(t, landed.Removed)
	require.Equal(t, "fail", landed.Review.Verdict)
	require.True(t, landed.Review.Cached)
	require.Len(t, landed.Review.Findings, 2)
	require.Len(t, e.reviews(), 2, "reviewed once per tree")
	require.Contains(t, e.Git(repo, "show", "--name-only", "--format=", "main"), "calc_test.go")
	e.requireGone(repo, it)
}

func TestReviewWithoutAVerdictIsUnavailableAndRefusedWithoutTheFlag(t *testing.T) {
	e, repo, it := reviewWorld(t, "")
	env := e.answer("garbage.txt", "I think it is mostly fine, but { not json at all }\n")
	mainBefore := e.Git(repo, "rev-parse", "main")

	r := e.OwtIn(repo, env, "", "merge", "calc", "--review", "--yes")
	requireUnavailable(t, r, "the AI review of calc is unavailable: claude's answer held no valid verdict JSON, twice; nothing was merged")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "go on without it: 'owt merge calc --accept-review'")
	runs := e.reviews()
	require.Len(t, runs, 2, "one retry")
	require.NotContains(t, runs[0].Argv[1], "previous answer could not be read")
	require.Contains(t, runs[1].Argv[1], "previous answer could not be read", "the retry is stricter")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	e.requireKept(repo, it)

	// No verdict is not cached: asked again next time.
	r = e.OwtIn(repo, env, "", "check", "calc", "--review")
	require.Contains(t, r.Stdout, "review:      review unavailable (claude)")
	require.Len(t, e.reviews(), 4)

	// A tool that fails is one line why.
	r = e.OwtIn(repo, []string{"OWT_FAKE_ANSWER=" + filepath.Join(e.Root, "missing")}, "", "merge", "calc", "--review", "--yes")
	requireUnavailable(t, r, "the AI review of calc is unavailable: claude -p exited with code 1")

	// A tool that is not signed in says so (and is not asked twice).
	before := len(e.reviews())
	r = e.OwtIn(repo, e.answer("login.txt", "Invalid API key · Please run /login\n"), "", "merge", "calc", "--review", "--yes")
	requireUnavailable(t, r, "the AI review of calc is unavailable: claude is not signed in (it answered: Invalid API key · Please run /login); sign in and try again")
	require.Len(t, e.reviews(), before+1)

	// A tool that is not installed says so, in one line.
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml",
		"[review]\ntool = \"ghost\"\n\n[tools.ghost]\ncommand = [\"ghost-agent\"]\nheadless = [\"ghost-agent\", \"-p\"]\n")
	r = e.OwtIn(repo, env, "", "merge", "calc", "--review", "--yes")
	requireOneLineError(t, r, `the AI review of calc is unavailable: tool "ghost" is not installed: "ghost-agent" was not found on PATH; nothing was merged`)
	require.Equal(t, 1, r.Code)
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", "[review]\ntool = \"claude\"\n")

	// The user's yes merges without it.
	r = e.OwtIn(repo, env, "", "merge", "calc", "--review", "--accept-review", "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "review: review unavailable (claude)")
	require.Contains(t, r.Stdout, "merged feat/calc into main")
	e.requireGone(repo, it)
}

func TestReviewThatOutlivesItsTimeoutIsEndedAndUnavailable(t *testing.T) {
	e, repo, it := reviewWorld(t, "timeout = \"2s\"\n")
	env := append(e.answer("pass.txt", passAnswer), "OWT_FAKE_ANSWER_DELAY=1h")
	mainBefore := e.Git(repo, "rev-parse", "main")

	r := e.OwtIn(repo, env, "", "merge", "calc", "--review", "--yes")
	requireUnavailable(t, r, "the AI review of calc is unavailable: claude did not answer within 2s (ended at the deadline); nothing was merged")
	require.Equal(t, 1, r.Code)
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	e.requireKept(repo, it)
	runs := e.reviews()
	require.Len(t, runs, 1, "no retry after the deadline")
	require.False(t, fixture.Alive(runs[0].PID), "the tool was ended at the deadline")
	require.True(t, strings.Contains(string(mustRead(t, e.Log)), `"event":"thinking"`))
}

// requireUnavailable fails unless r exited 1 saying, in one line after
// the line that a review starts, that the review is unavailable.
func requireUnavailable(t *testing.T, r fixture.Result, contains string) {
	t.Helper()
	require.Equal(t, 1, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
	require.Len(t, lines, 2, r.Stderr)
	require.True(t, strings.HasPrefix(lines[0], "owt: reviewing calc with "), lines[0])
	require.True(t, strings.HasPrefix(lines[1], "owt: "), lines[1])
	require.Contains(t, lines[1], contains)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// A run whose plan requires the review: its fail is a failing check, sent
// back to the agent once; when the agent's turn leaves the tree as it
// was, the task needs the user. One review per tree.
func TestRunRequiringReviewSendsItsFailBackToTheAgentOnce(t *testing.T) {
	e := NewEnv(t)
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", "[review]\ntool = \"claude\"\n")
	answer := filepath.Join(e.Root, "fail.txt")
	require.NoError(t, os.WriteFile(answer, []byte(failAnswer), 0o644))
	// The monitor runs the review, without OWT_* in its environment.
	e.WriteFile(e.Home, ".fakeagent.env", "OWT_FAKE_ANSWER="+answer+"\nOWT_FAKE_LOG="+e.Log+"\n")
	repo := e.NewRepo("app")
	task := "!write calc.go package calc\\n!commit add calc\\n!exec " + owtBin + " done --summary first"
	e.WriteFile(repo, "r.toml", oneTaskPlan("fix", task, "review = true"))
	e.MustOwt(repo, "run", "start", "r.toml")
	e.MustOwt(repo, "tmux", "init")

	e.waitTaskState(repo, "r", "needs_you")
	sent := e.promptsWith("r-fix", "the AI review (claude) fails it with 2 finding(s)")
	require.Len(t, sent, 1, "the review's fail goes to the agent once: %v\n%s", e.runStatus(repo, "r").Tasks[0].Why, e.MustOwt(repo, "run", "log", "r"))
	require.Contains(t, sent[0], "checks fail on your last commit")
	require.Contains(t, sent[0], "[high] calc.go:3: divides by zero when n is 0")
	require.NotContains(t, sent[0], "\x1b")
	require.Len(t, e.eventsOf(repo, "r", "delivered"), 1)
	checks := e.eventsOf(repo, "r", "checks")
	require.Len(t, checks, 1, "one review per tree")
	require.Contains(t, checks[0].Detail, "failed")
	require.Contains(t, e.runStatus(repo, "r").Tasks[0].Why, "still after one message to the agent")
	require.Len(t, e.reviews(), 1)
}

// Alt+m with [review] enabled: a failing review is a second question
// showing its findings; no changes nothing, yes merges despite it.
func TestMergePopupAsksAgainWhenTheReviewFails(t *testing.T) {
	e := newQuietEnv(t)
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", "[review]\nenabled = true\ntool = \"claude\"\n")
	answer := filepath.Join(e.Root, "fail.txt")
	require.NoError(t, os.WriteFile(answer, []byte(failAnswer), 0o644))
	// The popup runs in the tmux server's environment, set before this.
	e.WriteFile(e.Home, ".fakeagent.env", "OWT_FAKE_ANSWER="+answer+"\n")
	repo := e.NewRepo("app")
	it := e.shell(repo, "calc")
	e.commitIn(it.Path, "calc.go", "package calc\n", "add calc")
	head, tip := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", it.Branch)

	p := e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	e.WaitScreen(p, "Merge feat/calc into main?")
	e.typeText(p, "y")
	screen := e.WaitScreen(p, "The AI review fails calc: merge anyway?")
	require.Contains(t, screen, "review: fail (claude, 2 finding(s))")
	require.Contains(t, screen, "[high] calc.go:3: divides by zero when n is 0")
	require.Contains(t, screen, "Nothing was changed yet.")
	e.keys(p, "Escape")
	e.waitClosed(p)
	require.Equal(t, head, e.Git(repo, "rev-parse", "main"), "nothing merged")
	require.Equal(t, tip, e.Git(repo, "rev-parse", it.Branch))
	e.requireKept(repo, it)

	p = e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	e.WaitScreen(p, "Merge feat/calc into main?")
	e.typeText(p, "y")
	e.WaitScreen(p, "The AI review fails calc: merge anyway?")
	e.typeText(p, "y")
	e.Eventually(15*time.Second, "worktree removed", func() bool { return len(e.List(repo)) == 0 })
	require.Equal(t, "package calc", e.Git(repo, "show", "main:calc.go"))
	require.Len(t, e.reviews(), 1, "the same tree is reviewed once")
}

// A ship commits what the review passed, or nothing: a file that appears
// in the worktree while the tool reviews (here the fake tool, told by the
// task, writes it) stops the ship with nothing changed.
func TestShipRefusesWorkThatChangedWhileItWasReviewed(t *testing.T) {
	e := NewEnv(t)
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", "[review]\ntool = \"claude\"\n")
	repo := e.NewRepo("app")
	late := filepath.Join(e.Root, "app.worktrees", "calc", "late.txt")
	out := e.MustOwt(repo, "new", "--json", "--no-agent", "--no-setup", "--name", "calc", "Work on calc\n!exec touch "+late)
	var it Item
	require.NoError(t, json.Unmarshal([]byte(out), &it), out)
	require.Equal(t, filepath.Dir(late), it.Path)
	e.WriteFile(it.Path, "calc.go", "package calc\n")
	env := e.answer("pass.txt", passAnswer)
	mainBefore, branchBefore := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", it.Branch)

	r := e.OwtIn(repo, env, "", "ship", "calc", "--review", "--yes")
	require.Equal(t, 1, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "owt: calc changed while it was reviewed; nothing was shipped: ship again to review what it holds now")
	require.FileExists(t, late, "the tool wrote it during the review")
	require.Equal(t, branchBefore, e.Git(repo, "rev-parse", it.Branch), "no commit")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, "?? calc.go\n?? late.txt", e.Git(it.Path, "status", "--porcelain"))

	// Again: the tree as it is now is reviewed (the file is there already)
	// and shipped.
	r = e.OwtIn(repo, env, "", "ship", "calc", "--review", "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "committed 2 file(s) in calc")
	require.Equal(t, "calc.go\nlate.txt", e.Git(repo, "show", "--name-only", "--format=", "main"))
	require.Len(t, e.reviews(), 2)
}
