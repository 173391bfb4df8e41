package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

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
	e.WriteFile(filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt"), "config.toml", text)
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
var noPRYet = fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: "[]"}

// prList is gh pr list --head BRANCH --json … listing the pull request
// view (prView's JSON, whose head is the branch asked for).
func prList(view string) string {
	return "[" + strings.Replace(view, "{arg2}", "{arg3}", 1) + "]"
}

// createFixture answers gh pr create with PR 7's URL.
var createFixture = fixture.GhFixture{Args: []string{"pr", "create"}, Stdout: "https://github.com/o/app/pull/7\n"}

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
	e.PrependGh(noPRYet)
	e.MustOwt(repo, "pr", name)
}

// outboxMessages are the messages of agent name's outbox file.
func (e *Env) outboxMessages(name string) []struct {
	Kind, Key, State, Why string
} {
	e.t.Helper()
	var all []struct{ Kind, Key, State, Why string }
	files, _ := filepath.Glob(filepath.Join(e.Root, "state", "owt", "outbox", name+"-*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var box struct {
			Messages []struct{ Kind, Key, State, Why string }
		}
		if json.Unmarshal(data, &box) == nil {
			all = append(all, box.Messages...)
		}
	}
	return all
}

// conflictMessage is the conflict reaction's message in name's outbox.
func (e *Env) conflictMessage(name string) (state, why string, ok bool) {
	for _, m := range e.outboxMessages(name) {
		if m.Kind == "reaction conflict" {
			return m.State, m.Why, true
		}
	}
	return "", "", false
}
