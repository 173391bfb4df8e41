package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Runs under attack say what is true about their state (issue 16, the
// fresh-eyes tester's findings after items 1-9).

// waitScript is a program that returns once file exists: a task that
// holds its agent at work until the test lets it go.
func (e *Env) waitScript(file string) string {
	e.t.Helper()
	p := filepath.Join(e.Root, "wait-"+filepath.Base(file)+".sh")
	body := "#!/bin/sh\nwhile [ ! -e " + file + " ]; do sleep 0.2; done\n"
	require.NoError(e.t, os.WriteFile(p, []byte(body), 0o755))
	return p
}

// A parent's branch deleted after the parent was done: its child does
// not burn attempts on backoff; the parent needs the user (it no longer
// reads done), naming its branch, and the child waits, no attempt spent.
func TestRunWithAParentsBranchDeletedWaitsForTheUser(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	flag := filepath.Join(e.Root, "go-slow")
	e.WriteFile(repo, "d.toml", `[run]
tool = "claude"

[run.retry]
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "slow"
task = "!exec `+e.waitScript(flag)+`\n`+taskScript("slow.txt")+`"

[[task]]
id = "kid"
task = "`+taskScript("kid.txt")+`"
depends_on = ["a", "slow"]
`)
	e.MustOwt(repo, "run", "start", "d.toml")
	e.logRunOnFailure(repo, "d")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "a done", func() bool { return e.runTaskStates(repo, "d")["a"] == "done" })

	e.MustOwt(repo, "delete", "d-a", "--force", "--yes")
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	e.Eventually(60*time.Second, "kid tried to start", func() bool {
		return e.runTaskStates(repo, "d")["a"] == "needs_you" || len(e.eventsOf(repo, "d", "backoff")) > 0
	})
	time.Sleep(3 * time.Second) // more ticks: a backoff of kid would land now
	v := e.runStatus(repo, "d")
	require.Equal(t, "done", v.Tasks[1].State)
	require.Contains(t, v.Tasks[0].Why, "feat/d-a")
	require.Contains(t, v.Tasks[0].Why, "gone")
	kid := v.Tasks[2]
	require.Equal(t, "pending", kid.State)
	require.Equal(t, 0, *kid.Attempt, "no attempt was spent")
	require.Empty(t, e.eventsOf(repo, "d", "backoff"), "nothing burnt on backoff")
	require.Len(t, e.eventsOf(repo, "d", "needs_you"), 1, "said once")

	// What it says works: a retry does a again, and kid starts from it.
	e.MustOwt(repo, "run", "retry", "d", "a")
	e.Eventually(90*time.Second, "kid done", func() bool { return e.runTaskStates(repo, "d")["kid"] == "done" })
	require.Contains(t, e.Git(repo, "log", "--format=%s", "feat/d-kid"), "add a.txt", "kid started from a's new work")
}

// A branch name git cannot make because of another branch (feat/y-b
// while feat/y-b/old exists, or anything under feat while a branch named
// feat exists) is a name in use: run start and --dry-run say so, exit 1,
// nothing registered; owt new says it in one line, nothing made.
func TestANameWhoseBranchClashesWithAnotherRefIsInUse(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "y.toml", "[[task]]\nid = \"b\"\ntask = \"two\"\n")
	e.Git(repo, "branch", "feat/y-b/old")
	for _, args := range [][]string{{"run", "start", "--name", "y", "y.toml", "--dry-run"}, {"run", "start", "--name", "y", "y.toml"}} {
		r := e.Owt(repo, append([]string{"-S", nowhere}, args...)...)
		requireOneLineError(t, r, "task b of run y would get the worktree y-b, which is in use: branch feat/y-b/old exists, and git cannot have both it and feat/y-b")
		require.Equal(t, 1, r.Code, args)
	}
	require.Empty(t, e.runFiles(), "nothing registered")

	e.Git(repo, "branch", "-D", "feat/y-b/old")
	e.Git(repo, "branch", "feat")
	r := e.Owt(repo, "-S", nowhere, "run", "start", "--name", "y", "y.toml", "--dry-run")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/y-b")
	require.Equal(t, 1, r.Code)

	before := e.Git(repo, "for-each-ref")
	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "z", "add a thing")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/z")
	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "add a thing")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/")
	require.Equal(t, before, e.Git(repo, "for-each-ref"), "no branch made")
	var listed []any
	out := e.MustOwt(repo, "list", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
	require.Empty(t, listed, "no worktree made")
}

// Two runs started at once whose tasks would share a worktree name
// (run q task b-c and run q-b task c are both q-b-c) are never both
// registered: the check is made under the lock registration takes.
func TestRunsStartedAtOnceNeverRegisterClashingNames(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "one.toml", "[[task]]\nid = \"b-c\"\ntask = \"one\"\n")
	e.WriteFile(repo, "two.toml", "[[task]]\nid = \"c\"\ntask = \"two\"\n")
	for i := 0; i < 6; i++ {
		q := fmt.Sprintf("q%d", i)
		var wg sync.WaitGroup
		var codes [2]int
		for j, args := range [][]string{{"--name", q, "one.toml"}, {"--name", q + "-b", "two.toml"}} {
			wg.Add(1)
			go func(j int, args []string) {
				defer wg.Done()
				codes[j] = e.Owt(repo, append([]string{"-S", nowhere, "run", "start"}, args...)...).Code
			}(j, args)
		}
		wg.Wait()
		require.ElementsMatch(t, []int{0, 1}, codes[:], "round %d: exactly one of the two is registered", i)
	}
}

// A run file made unreadable in place and repaired in place (no rename,
// so the runs dir does not change): while it is unreadable the run stays
// on the bar with ▲ and in owt run list, saying so and where, even after
// other changes to the runs dir; once repaired, the engine drives it on.
func TestARunFileRepairedInPlaceIsDrivenAgain(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	flag := filepath.Join(e.Root, "go-x")
	e.WriteFile(repo, "b.toml", `[run]
tool = "claude"

[[task]]
id = "x"
task = "!exec `+e.waitScript(flag)+`\n`+taskScript("x.txt")+`"

[[task]]
id = "y"
task = "`+taskScript("y.txt")+`"
depends_on = ["x"]
`)
	e.MustOwt(repo, "run", "start", "b.toml")
	e.logRunOnFailure(repo, "b")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "x at work", func() bool { return e.runTaskStates(repo, "b")["x"] == "running" })

	file := filepath.Join(e.Root, "state", "owt", "runs", "b.json")
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(file, 0))
	e.Eventually(20*time.Second, "the monitor saw it corrupt", func() bool { return strings.Contains(e.owtLog(), "b.json is corrupt") })

	// Another change to the runs dir: a run of another server.
	e.WriteFile(repo, "o.toml", "[[task]]\nid = \"o\"\ntask = \"one\"\n")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "o.toml")
	bar := func() string { return e.Tmux("show-options", "-gqv", "@owt-runs") }
	e.Eventually(20*time.Second, "the bar keeps b, needing the user", func() bool {
		return strings.Contains(bar(), "b unreadable #[fg=yellow,bold]▲")
	})
	r := e.Owt(repo, "run", "list")
	require.Regexp(t, `(?m)^b\s+unreadable\s.*b\.json is corrupt`, r.Stdout)
	require.NotContains(t, r.Stdout, "no runs")

	// Repaired in place: the engine goes on with it.
	require.NoError(t, os.WriteFile(file, saved, 0o600))
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	e.Eventually(60*time.Second, "y done", func() bool { return e.runTaskStates(repo, "b")["y"] == "done" })
	e.Eventually(20*time.Second, "the bar shows b as it is", func() bool { return !strings.Contains(bar(), "unreadable") })
}

// A run's notice reaches [notify] command as what it is: OWT_STATUS
// needs_you, OWT_EVENT naming the kind, the text, the run and the task;
// and [notify] on filters it (needs_you), as it filters status changes.
func TestRunNoticesReachTheNotifyCommandAsWhatTheyAre(t *testing.T) {
	e := NewEnv(t)
	told := filepath.Join(e.Root, "told.log")
	script := filepath.Join(e.Root, "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"+
		`echo "$OWT_NAME|$OWT_STATUS|$OWT_EVENT|$OWT_RUN|$OWT_TASK|$OWT_TEXT" >> `+told+"\n"), 0o755))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf("[notify]\ncommand = [%q]\n", script))
	plan := "[run]\ntool = \"claude\"\n\n[run.retry]\nmax_attempts = 1\n\n[[task]]\nid = \"bad\"\ntask = \"!exec " + owtBin + " done --fail cannot-be-done\"\n"

	// Not listed in on: nothing is told of it.
	quiet := e.NewRepo("quiet")
	e.WriteFile(quiet, ".owt.toml", "[notify]\non = [\"waiting\"]\n")
	e.Git(quiet, "add", ".owt.toml")
	e.Git(quiet, "commit", "-qm", "config")
	e.WriteFile(quiet, "q.toml", plan)
	e.MustOwt(quiet, "run", "start", "q.toml")
	e.MustOwt(quiet, "tmux", "init")
	e.Eventually(60*time.Second, "q failed", func() bool { return e.runStatus(quiet, "q").State == "failed" })

	// Listed: told as what it is.
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[notify]\non = [\"needs_you\"]\n")
	e.Git(repo, "add", ".owt.toml")
	e.Git(repo, "commit", "-qm", "config")
	e.WriteFile(repo, "ex.toml", plan)
	e.MustOwt(repo, "run", "start", "ex.toml")
	e.Eventually(60*time.Second, "the user was told about bad", func() bool {
		b, _ := os.ReadFile(told)
		return strings.TrimSpace(string(b)) != ""
	})
	time.Sleep(2 * time.Second) // more ticks: a second notice would land now
	b, _ := os.ReadFile(told)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 1, "told once, and nothing of run q: %s", b)
	require.Regexp(t, `^ex-bad\|needs_you\|run_task_failed\|ex\|bad\|owt: run ex: task bad failed \(.*cannot-be-done`, lines[0])
}

// A retry never restarts the agent in front of the user: while a client
// is on the task's pane the restart is held, the task says so, and it
// restarts once the user left.
func TestRunHoldsARetryWhileAClientIsOnTheAgentsPane(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	flag := filepath.Join(e.Root, "fail-now")
	e.WriteFile(repo, "hold.toml", `[run]
tool = "claude"

[run.retry]
max_attempts = 2
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "t"
task = "!exec `+e.waitScript(flag)+`\n!exec `+owtBin+` done --fail try-again"
`)
	e.MustOwt(repo, "run", "start", "hold.toml")
	e.logRunOnFailure(repo, "hold")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "t at work", func() bool { return e.runTaskStates(repo, "hold")["t"] == "running" })

	it := e.Find(repo, "hold-t")
	client, _ := e.attach(it.Session)
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	held := e.waitRunEvent(repo, "hold", "held")
	require.Contains(t, held.Detail, "the user is on its pane")
	require.Contains(t, e.runTaskStates(repo, "hold")["t.why"], "restarts when you leave its pane")
	time.Sleep(3 * time.Second) // more ticks: a restart would happen now
	require.Len(t, e.agentStarts("hold-t"), 1, "not restarted in front of the user")
	require.Len(t, e.eventsOf(repo, "hold", "held"), 1, "said once")

	left := time.Now()
	e.Tmux("detach-client", "-t", client)
	e.Eventually(60*time.Second, "attempt 2 started", func() bool { return len(e.agentStarts("hold-t")) == 2 })
	starting := e.eventsOf(repo, "hold", "starting")
	require.Len(t, starting, 2)
	require.True(t, starting[1].At.After(left), "restarted only once the user left: %v, left at %v", starting[1].At, left)
}

// A needs-you task whose worktree folder was removed behind owt's back
// (rm -rf) no longer shows the agent's old question: it says the
// worktree is gone.
func TestANeedsYouTaskWhoseWorktreeWasRemovedSaysSo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "w.toml", oneTaskPlan("ask", "!exec "+owtBin+" done --blocked which-db", ""))
	e.MustOwt(repo, "run", "start", "w.toml")
	e.logRunOnFailure(repo, "w")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "ask needs you", func() bool { return e.runTaskStates(repo, "w")["ask"] == "needs_you" })
	require.Contains(t, e.runTaskStates(repo, "w")["ask.why"], "which-db")

	require.NoError(t, os.RemoveAll(e.Find(repo, "w-ask").Path))
	e.Eventually(30*time.Second, "it says its worktree is gone", func() bool {
		return strings.Contains(e.runTaskStates(repo, "w")["ask.why"], "its worktree w-ask is gone")
	})
	require.Equal(t, "needs_you", e.runTaskStates(repo, "w")["ask"])
}
