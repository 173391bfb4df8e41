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

type factJSON struct {
	ID     int64
	Text   string
	Kind   string
	Pinned bool
	Source struct{ From, Agent, Ref, Branch string }
	Stale  string
}

func (e *Env) facts(dir string, args ...string) []factJSON {
	e.t.Helper()
	out := e.MustOwt(dir, append([]string{"memory"}, append(args, "--json")...)...)
	var fs []factJSON
	require.NoError(e.t, json.Unmarshal([]byte(out), &fs), out)
	return fs
}

// The user's facts, from many processes at once, all kept and found;
// bad input changes nothing.
func TestMemoryAddSearchForgetAcrossProcesses(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.Owt(repo, "memory", "add", "--kind", "gotcha", fmt.Sprintf("writer %d: the cache folder must be cleared after schema changes", i))
			if r.Code != 0 {
				errs <- r.Stderr
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Fatal(msg)
	}
	require.Len(t, e.facts(repo, "list"), 20, "20 writers at once, nothing lost")

	pin := e.MustOwt(repo, "memory", "add", "--pin", "--kind", "convention", "Use pnpm, never npm")
	require.Regexp(t, `^remembered #\d+ \(convention\)\n$`, pin)
	hits := e.facts(repo, "search", "pnpm")
	require.Len(t, hits, 1)
	require.True(t, hits[0].Pinned)
	require.Equal(t, "user", hits[0].Source.From)

	for _, bad := range [][]string{{"add", "--kind", "opinion", "x"}, {"add", "  "}, {"forget", "abc"}, {"search"}, {"list", "--kind", "x"}} {
		r := e.Owt(repo, append([]string{"memory"}, bad...)...)
		require.Equal(t, 2, r.Code, "%v: %s", bad, r.Stderr)
		require.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line: %q", r.Stderr)
	}
	require.Len(t, e.facts(repo, "list"), 21, "bad input changed nothing")

	e.MustOwt(repo, "memory", "forget", fmt.Sprint(hits[0].ID))
	require.Empty(t, e.facts(repo, "search", "pnpm"))
	r := e.Owt(repo, "memory", "forget", fmt.Sprint(hits[0].ID))
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "no fact")
}

// A new agent starts with the pinned facts and those its task concerns,
// within the budget, in its own untracked instructions file; an agent's
// remember over MCP is found by the user's search.
func TestMemoryInjectionAndAgentsRemember(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[memory]\ninject_tokens = 60\n")
	e.MustOwt(repo, "memory", "add", "--pin", "Always run make lint before committing")
	e.MustOwt(repo, "memory", "add", "--kind", "gotcha", "The checkout tests need the stripe mock on port 12111")
	e.MustOwt(repo, "memory", "add", "Deploys happen on Fridays")
	e.MustOwt(repo, "memory", "add", "The checkout page is rendered on the server: "+strings.Repeat("long words here ", 20))

	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "co", "Fix the checkout tests")
	it := e.Find(repo, "co")
	data, err := os.ReadFile(filepath.Join(it.Path, "CLAUDE.local.md"))
	require.NoError(t, err)
	local := string(data)
	require.Contains(t, local, "<!-- owt:memory begin -->")
	require.Contains(t, local, "Always run make lint", "pinned first")
	require.Contains(t, local, "stripe mock on port 12111", "what the task concerns")
	require.NotContains(t, local, "Fridays", "not what the task does not concern")
	require.NotContains(t, local, "rendered on the server", "not past the budget")
	require.Less(t, strings.Index(local, "make lint"), strings.Index(local, "stripe"))
	require.Empty(t, e.Git(it.Path, "status", "--porcelain"), "invisible to git")
	// A note set and cleared again leaves the memory's file hidden.
	e.MustOwt(repo, "note", "a passing note")
	e.MustOwt(repo, "note", "--clear")
	require.Empty(t, e.Git(it.Path, "status", "--porcelain"), "still invisible to git after owt note --clear")
	data, err = os.ReadFile(filepath.Join(it.Path, "CLAUDE.local.md"))
	require.NoError(t, err)
	require.Contains(t, string(data), "stripe mock on port 12111", "the facts stay")
	require.NotContains(t, string(data), "a passing note")

	cs := e.mcpAs("co", it.Repo)
	out, isErr := call(t, cs, "remember", map[string]any{"text": "The stripe mock needs STRIPE_MOCK=1 in the test env", "kind": "gotcha"})
	require.False(t, isErr, out)
	hits := e.facts(repo, "search", "STRIPE_MOCK in the test env")
	require.Len(t, hits, 1)
	require.Equal(t, "agent", hits[0].Source.From)
	require.Equal(t, "co", hits[0].Source.Agent)
	out, isErr = call(t, cs, "recall", map[string]any{"query": "stripe port"})
	require.False(t, isErr, out)
	require.Contains(t, out, "12111")
	out, isErr = call(t, cs, "remember", map[string]any{"text": "x", "kind": "opinion"})
	require.True(t, isErr, out)
}

// mine takes a done summary and a merged commit's message, each once and
// with its source; consolidate merges duplicates and reports a
// contradiction and a stale worktree.
func TestMemoryMineAndConsolidate(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "api.go", "package api\n")
	e.Git(repo, "add", "api.go")
	e.Git(repo, "commit", "-q", "-m", "Switch sessions to signed cookies", "-m", "We decided against JWTs: revocation needs a server round trip anyway.")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "dn", "!exec "+owtBin+" done --summary the-importer-needs-utf8-input")
	e.Eventually(30*time.Second, "dn done", func() bool { return e.doneOf(repo, "dn") != nil })

	out := e.MustOwt(repo, "memory", "mine")
	require.Contains(t, out, "mined 2 new fact(s)")
	require.Contains(t, e.MustOwt(repo, "memory", "mine"), "mined 0 new fact(s)", "each source once")
	all := e.facts(repo, "list")
	var sources []string
	for _, f := range all {
		sources = append(sources, f.Source.From+":"+f.Kind)
		if f.Source.From == "commit" {
			require.Contains(t, f.Text, "decided against JWTs")
			require.Len(t, f.Source.Ref, 40)
		}
		if f.Source.From == "done" {
			require.Equal(t, "dn", f.Source.Agent)
		}
	}
	require.ElementsMatch(t, []string{"commit:decision", "done:fact"}, sources)

	e.MustOwt(repo, "memory", "add", "Run the api tests with -race before pushing")
	e.MustOwt(repo, "memory", "add", "Run the api tests with -race before pushing them")
	e.MustOwt(repo, "memory", "add", "The importer reads files in batches of 500 rows")
	e.MustOwt(repo, "memory", "add", "The importer reads files in batches of 1000 rows")
	e.WriteFile(repo, ".owt.toml", "[memory]\nstale_after = \"1s\"\n")
	time.Sleep(1200 * time.Millisecond)
	rep := e.MustOwt(repo, "memory", "consolidate")
	require.Contains(t, rep, "merged 1 group(s) of duplicates")
	require.Regexp(t, `contradiction: #\d+ and #\d+ \(different numbers`, rep)
	require.Contains(t, rep, "stale worktree dn:")
	var runTests int
	for _, f := range e.facts(repo, "list") {
		if strings.Contains(f.Text, "-race") {
			runTests++
		}
	}
	require.Equal(t, 1, runTests, "the duplicate is folded")
	require.Contains(t, e.MustOwt(repo, "memory", "reports"), "contradiction")
}

// A corrupt memory database: memory commands say so in one line and set
// it aside; agents still start, saying they start without facts.
func TestMemoryCorruptDatabase(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "memory", "add", "a fact")
	dbs, err := filepath.Glob(filepath.Join(e.Var("XDG_DATA_HOME"), "owt", "memory", "*.db"))
	require.NoError(t, err)
	require.Len(t, dbs, 1)
	junk := strings.Repeat("garbage ", 1000)
	require.NoError(t, os.WriteFile(dbs[0], []byte(junk), 0o600))
	for _, f := range []string{"-wal", "-shm"} {
		_ = os.Remove(dbs[0] + f)
	}
	r := e.Owt(repo, "new", "--tool", "claude", "--no-setup", "--name", "x", "a task")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "starts without facts")
	aside, _ := filepath.Glob(dbs[0] + ".corrupt-*")
	require.Len(t, aside, 1, "set aside, not deleted")
	kept, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	require.Equal(t, junk, string(kept))
	require.Contains(t, e.MustOwt(repo, "memory", "list"), "memory is empty", "a new one started")
}

// The monitor consolidates a repository's memory on its own, every
// [memory] consolidate_every while its agents are idle, and the control
// plane's BACKGROUND shows what the pass found.
func TestMemoryConsolidatesInTheBackground(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[memory]\nconsolidate_every = \"2s\"\n")
	e.MustOwt(repo, "memory", "add", "The importer reads files in batches of 500 rows")
	e.MustOwt(repo, "memory", "add", "The importer reads files in batches of 1000 rows")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task")
	e.Eventually(60*time.Second, "a consolidation report", func() bool {
		return strings.Contains(e.MustOwt(repo, "memory", "reports"), "contradiction")
	})
	e.attach("harness")
	p := e.pane(repo, owtBin, "popup", "control")
	var screen string
	e.Eventually(15*time.Second, "BACKGROUND in the control plane", func() bool {
		screen = e.Capture(p)
		return strings.Contains(screen, "BACKGROUND") && strings.Contains(screen, "contradiction: #1 and #2")
	})
	e.keys(p, "Escape")
}

// A swarm's members start with the memory too, for its goal.
func TestSwarmMembersStartWithTheMemory(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "memory", "add", "--pin", "Always run make lint before committing")
	out := e.MustOwt(repo, "swarm", "start", "--tool", "claude", "--json", "--workers", "implementer", "add a greeting")
	var sw swarmJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
	data, err := os.ReadFile(filepath.Join(sw.Path, "CLAUDE.local.md"))
	require.NoError(t, err)
	require.Contains(t, string(data), "Always run make lint")
	require.Empty(t, e.Git(sw.Path, "status", "--porcelain"), "invisible to git")
}
