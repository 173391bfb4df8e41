package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Children start from their parents' work: without into, from their
// branches merged outside any checkout; parents that conflict block the
// child before anything of it is made. Each child is told what its
// parents did.

// childTask is one task of owt run status --json, with what the tests of
// children read.
type childTask struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Attempt  int    `json:"attempt"`
	Name     string `json:"name"`
	Branch   string `json:"branch"`
	Why      string `json:"why"`
	Evidence *struct {
		Commits int    `json:"commits"`
		Summary string `json:"summary"`
	} `json:"evidence"`
}

func (e *Env) childTasks(dir, run string) map[string]childTask {
	e.t.Helper()
	out := e.MustOwt(dir, "run", "status", "--json", run)
	var v struct{ Tasks []childTask }
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	m := map[string]childTask{}
	for _, t := range v.Tasks {
		m[t.ID] = t
	}
	return m
}

const childrenPlan = `[run]
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "%A%"

[[task]]
id = "b"
task = "%B%"

[[task]]
id = "c"
task = "%C%"
depends_on = ["a", "b"]
`

func childrenPlanOf(a, b, c string) string {
	return strings.NewReplacer("%A%", a, "%B%", b, "%C%", c).Replace(childrenPlan)
}

func TestRunChildStartsFromItsParentsMergedWorkWithoutInto(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "kids.toml", childrenPlanOf(taskScript("a.txt"), taskScript("b.txt"), taskScript("c.txt")))
	mainBefore := e.Git(repo, "rev-parse", "main")
	e.MustOwt(repo, "run", "start", "kids.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "run kids finished", func() bool {
		return e.runStatus(repo, "kids").State == "finished"
	})
	tasks := e.childTasks(repo, "kids")
	for _, id := range []string{"a", "b", "c"} {
		require.Equal(t, "done", tasks[id].State, "%s: %s", id, tasks[id].Why)
	}
	// c's worktree has a's and b's files, and only c's own commit counts
	// as its work.
	c := e.Find(repo, "kids-c")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		_, err := os.Stat(filepath.Join(c.Path, f))
		require.NoError(t, err, "%s in c's worktree", f)
	}
	require.Equal(t, 1, tasks["c"].Evidence.Commits)
	parents := e.Git(repo, "log", "-1", "--format=%P", tasks["c"].Branch+"~1")
	require.Equal(t, e.Git(repo, "rev-parse", tasks["a"].Branch)+" "+e.Git(repo, "rev-parse", tasks["b"].Branch), parents,
		"c's branch starts at a merge of a's and b's")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, "main", e.Git(repo, "branch", "--show-current"))

	// c was told about a and b: ids, branches, summaries, commits, diffstat.
	prompt := strings.Join(e.Prompts("kids-c"), "\n")
	for _, id := range []string{"a", "b"} {
		require.Contains(t, prompt, "Task "+id+" (branch "+tasks[id].Branch+", done)")
		require.Contains(t, prompt, "> did-"+id+".txt", "its summary")
		require.Contains(t, prompt, "- add "+id+".txt", "its commit")
		require.Contains(t, prompt, id+".txt | 1 +", "its diffstat")
	}
	require.Contains(t, prompt, "starts from a merge of their branches")
	require.NotContains(t, strings.Join(e.Prompts("kids-a"), "\n"), "builds on", "a has no parents")
}

func TestRunChildOfConflictingParentsIsBlockedBeforeItStarts(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "same.txt", "one\n")
	e.Git(repo, "add", "same.txt")
	e.Git(repo, "commit", "-q", "-m", "same")
	edit := func(text string) string {
		return "!write same.txt " + text + "\\n!commit " + text + "\\n!exec " + owtBin + " done --summary " + text
	}
	e.WriteFile(repo, "clash.toml", childrenPlanOf(edit("from-a"), edit("from-b"), taskScript("c.txt")))
	e.WriteFile(repo, "notes.txt", "the user's own edit, not committed\n")
	headBefore := e.Git(repo, "rev-parse", "HEAD")
	statusBefore := e.Git(repo, "status", "--porcelain")
	e.MustOwt(repo, "run", "start", "clash.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "c blocked", func() bool { return e.childTasks(repo, "clash")["c"].State == "blocked" })
	tasks := e.childTasks(repo, "clash")
	c := tasks["c"]
	require.Contains(t, c.Why, "its parents a and b conflict in same.txt")
	require.Equal(t, 0, c.Attempt, "no attempt was made")
	require.Empty(t, c.Name, "no worktree")
	for _, it := range e.List(repo) {
		require.NotEqual(t, "clash-c", it.Name)
	}
	require.NotContains(t, e.Git(repo, "branch", "--list"), "clash-c")
	require.NotContains(t, strings.Join(e.Sessions(), " "), "clash-c")
	require.Empty(t, e.Prompts("clash-c"))
	require.Equal(t, headBefore, e.Git(repo, "rev-parse", "HEAD"))
	require.Equal(t, statusBefore, e.Git(repo, "status", "--porcelain"), "the user's checkout is untouched")
	require.Equal(t, "one", e.Git(repo, "show", "main:same.txt"))
	// Nothing goes on without the user: the run says so (issue 16, item 5).
	e.Eventually(10*time.Second, "the run failed on the conflict", func() bool { return e.runStatus(repo, "clash").State == "failed" })

	// The way out its Why gives: merge a into b's branch and resolve it
	// there (in b's worktree, not the user's checkout); c starts then,
	// from both.
	bDir := e.Find(repo, tasks["b"].Name).Path
	cmd := []string{"-c", "core.editor=true", "merge", "--no-ff", tasks["a"].Branch}
	_, err := e.tryGit(bDir, cmd...)
	require.Error(t, err, "the merge conflicts")
	e.WriteFile(bDir, "same.txt", "from-a and from-b\n")
	e.Git(bDir, "add", "same.txt")
	e.Git(bDir, "-c", "core.editor=true", "commit", "-q", "--no-edit")

	e.Eventually(60*time.Second, "c done", func() bool { return e.childTasks(repo, "clash")["c"].State == "done" })
	cDir := e.Find(repo, "clash-c").Path
	data, err := os.ReadFile(filepath.Join(cDir, "same.txt"))
	require.NoError(t, err)
	require.Equal(t, "from-a and from-b\n", string(data))
	var released bool
	for _, ev := range e.runEvents(repo, "clash") {
		if ev.Event == "released" && ev.Task == "c" {
			released = true
			require.Contains(t, ev.Detail, "branch of parent b moved")
		}
	}
	require.True(t, released)
	require.Equal(t, statusBefore, e.Git(repo, "status", "--porcelain"))
	require.Equal(t, "finished", e.runStatus(repo, "clash").State, "reopened when c was released, finished with it")
}

// tryGit runs git in dir and returns its output and error.
func (e *Env) tryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
