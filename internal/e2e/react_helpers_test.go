package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stretchr/testify/require"
)

// The fake gh of testdata/fakegh, built once next to the owt binary.
var (
	fakeGhOnce sync.Once
	fakeGhDir  string
	fakeGhErr  error
)

// ghFixture is one canned answer of the fake gh (testdata/fakegh).
type ghFixture struct {
	Args   []string `json:"args"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr,omitempty"`
	Exit   int      `json:"exit,omitempty"`
	// Until: served only until a call whose argv starts with it was made.
	Until []string `json:"until,omitempty"`
	// Delay: answered this late (a Go duration), as over a slow network.
	Delay string `json:"delay,omitempty"`
}

// ghCall is one call the fake gh logged.
type ghCall struct {
	Argv []string  `json:"argv"`
	Dir  string    `json:"dir"`
	At   time.Time `json:"at"`
}

// useFakeGh puts the fake gh first on PATH for owt (and the monitor that
// owt starts) and points it at a fixtures dir of this test.
func (e *Env) useFakeGh() string {
	e.t.Helper()
	fakeGhOnce.Do(func() {
		fakeGhDir = filepath.Join(filepath.Dir(owtBin), "gh-bin")
		cmd := exec.Command("go", "build", "-o", filepath.Join(fakeGhDir, "gh"), "./testdata/fakegh")
		cmd.Dir = moduleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeGhErr = err
			e.t.Logf("build fake gh: %s", out)
		}
	})
	require.NoError(e.t, fakeGhErr)
	dir := filepath.Join(e.Root, "gh")
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	e.Set("PATH", fakeGhDir+string(os.PathListSeparator)+e.vars["PATH"])
	e.Set("FAKEGH_DIR", dir)
	e.setGh()
	return dir
}

// setGh replaces the fake gh's fixtures (atomically: a call reads them
// whole).
func (e *Env) setGh(fx ...ghFixture) {
	e.t.Helper()
	if fx == nil {
		fx = []ghFixture{}
	}
	data, err := json.Marshal(fx)
	require.NoError(e.t, err)
	dir := e.vars["FAKEGH_DIR"]
	tmp := filepath.Join(dir, ".fixtures.tmp")
	require.NoError(e.t, os.WriteFile(tmp, data, 0o644))
	require.NoError(e.t, os.Rename(tmp, filepath.Join(dir, "fixtures.json")))
}

// ghCalls are the fake gh's calls whose argv starts with prefix.
func (e *Env) ghCalls(prefix ...string) []ghCall {
	e.t.Helper()
	f, err := os.Open(filepath.Join(e.vars["FAKEGH_DIR"], "calls.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(e.t, err)
	defer f.Close()
	var out []ghCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c ghCall
		require.NoError(e.t, json.Unmarshal(sc.Bytes(), &c))
		if len(c.Argv) >= len(prefix) && strings.Join(c.Argv[:len(prefix)], "\x00") == strings.Join(prefix, "\x00") {
			out = append(out, c)
		}
	}
	return out
}

// withRemote gives repo a bare repository on disk as its origin.
func (e *Env) withRemote(repo string) string {
	e.t.Helper()
	bare := filepath.Join(e.Root, "remote.git")
	e.Git(e.Root, "init", "-q", "--bare", "-b", "main", bare)
	e.Git(repo, "remote", "add", "origin", bare)
	e.Git(repo, "push", "-q", "origin", "main")
	return bare
}

// userConfig writes the user's owt config.
func (e *Env) userConfig(text string) {
	e.t.Helper()
	e.WriteFile(filepath.Join(e.vars["XDG_CONFIG_HOME"], "owt"), "config.toml", text)
}

// prItem is the part of owt list --json about PRs and reactions.
type prItem struct {
	Name string
	PR   *struct {
		Number int
		URL    string
		State  string
		Checks string
		Review string
		Head   string
	}
	NeedsYou  []string `json:"needs_you"`
	Reactions map[string]struct {
		Attempts  int
		Passes    int
		NeedsYou  string `json:"needs_you"`
		Signature string
		Seen      string
	}
}

func (e *Env) prItem(repo, name string) prItem {
	e.t.Helper()
	out := e.MustOwt(repo, "list", "--json")
	var items []prItem
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	for _, it := range items {
		if it.Name == name {
			return it
		}
	}
	e.t.Fatalf("no item %q in owt list", name)
	return prItem{}
}

// prView is gh pr view's JSON for PR 7 at head with the given checks.
func prView(head, review string, checks ...map[string]any) string {
	if checks == nil {
		checks = []map[string]any{}
	}
	v := map[string]any{
		"number": 7, "url": "https://github.com/o/app/pull/7", "state": "OPEN", "isDraft": false,
		"headRefOid": head, "reviewDecision": review, "latestReviews": []any{}, "statusCheckRollup": checks,
		"headRefName": "{arg2}", // gh pr view SELECTOR: the branch asked for (a number when polled)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func checkRun(name, status, conclusion string, run int) map[string]any {
	return map[string]any{
		"__typename": "CheckRun", "name": name, "workflowName": "CI", "status": status, "conclusion": conclusion,
		"detailsUrl": "https://github.com/o/app/actions/runs/" + itoa(run) + "/job/1",
	}
}

// noPRYet is gh pr list --head BRANCH for a branch without a pull
// request: an empty list (owt pr's look before it opens one).
var noPRYet = ghFixture{Args: []string{"pr", "list"}, Stdout: "[]"}

// prList is gh pr list --head BRANCH --json … listing the pull request
// view (prView's JSON, whose head is the branch asked for).
func prList(view string) string {
	return "[" + strings.Replace(view, "{arg2}", "{arg3}", 1) + "]"
}

// prependGh puts fx in front of the fake gh's current fixtures.
func (e *Env) prependGh(fx ...ghFixture) {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.vars["FAKEGH_DIR"], "fixtures.json"))
	require.NoError(e.t, err)
	var cur []ghFixture
	require.NoError(e.t, json.Unmarshal(data, &cur))
	e.setGh(append(fx, cur...)...)
}

// createFixture answers gh pr create with PR 7's URL.
var createFixture = ghFixture{Args: []string{"pr", "create"}, Stdout: "https://github.com/o/app/pull/7\n"}

// startAgent starts fake claude as name on a scripted task, with the
// monitor running, and waits until its turn is over.
func (e *Env) startAgent(repo, name, script string) {
	e.t.Helper()
	e.MustOwt(repo, "tmux", "init")
	e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", name, "--", script)
	e.WaitStatus(repo, name, "idle", 60*time.Second)
}

// agentWithPR starts an agent whose task commits a file and opens its
// pull request (#7).
func (e *Env) agentWithPR(repo, name string) {
	e.t.Helper()
	e.startAgent(repo, name, "Add a feature\n!write feature.txt\n!commit add feature")
	e.prependGh(noPRYet)
	e.MustOwt(repo, "pr", name)
}
