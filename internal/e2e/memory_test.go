package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the test holds the memory's database locked
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

// mine takes, each once and with its source, the done summaries of live
// agents and of agents torn down before any mine (merged, deleted), and
// the messages of exactly the commits owt merged — not a commit of the
// user's, nor one of a branch deleted unmerged; consolidate merges
// duplicates and reports a contradiction and a stale worktree.
func TestMemoryMineAndConsolidate(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "api.go", "package api\n")
	e.Git(repo, "add", "api.go")
	e.Git(repo, "commit", "-q", "-m", "Switch sessions to signed cookies", "-m", "We decided against JWTs: revocation needs a server round trip anyway.")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "dn", "!exec "+owtBin+" done --summary dn-said-the-importer-needs-utf8-input")
	// mg says done, commits (with a body) and is merged; dl says done,
	// commits and is deleted unmerged: both before any mine.
	for _, name := range []string{"mg", "dl"} {
		e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", name, "!exec "+owtBin+" done --summary "+name+"-said-the-retries-use-jittered-backoff\n!exit 0")
	}
	commitIn := func(name, subject, body string) string {
		it := e.Find(repo, name)
		e.WriteFile(it.Path, name+".go", "package "+name+"\n")
		e.Git(it.Path, "add", name+".go")
		e.Git(it.Path, "commit", "-q", "-m", subject, "-m", body)
		return e.Git(it.Path, "rev-parse", "HEAD")
	}
	for _, name := range []string{"dn", "mg", "dl"} {
		e.Eventually(30*time.Second, name+" done", func() bool { return e.doneOf(repo, name) != nil })
	}
	for _, name := range []string{"mg", "dl"} {
		e.Eventually(30*time.Second, name+" exited", func() bool { return e.Find(repo, name).Status == "exited" })
	}
	mgBranch, dlBranch := e.Find(repo, "mg").Branch, e.Find(repo, "dl").Branch
	merged := commitIn("mg", "Use jittered backoff for retries", "Beware: fixed delays synchronise the clients and they retry in waves.")
	commitIn("dl", "Try a cache per user", "We decided on a cache per user, then dropped the idea.")
	require.Contains(t, e.MustOwt(repo, "merge", "mg", "--yes"), "merged "+mgBranch+" into main")
	e.MustOwt(repo, "delete", "dl", "--force")

	out := e.MustOwt(repo, "memory", "mine")
	require.Contains(t, out, "mined 4 new fact(s)", "dn's, mg's and dl's summaries, mg's merged commit")
	require.Contains(t, e.MustOwt(repo, "memory", "mine"), "mined 0 new fact(s)", "each source once")
	all := e.facts(repo, "list")
	var sources []string
	for _, f := range all {
		sources = append(sources, f.Source.From+":"+f.Source.Agent+":"+string(f.Kind))
		require.NotContains(t, f.Text, "JWTs", "a commit owt did not merge is not mined")
		require.NotContains(t, f.Text, "cache per user", "nor one of a branch deleted unmerged")
		switch f.Source.From {
		case "commit":
			require.Equal(t, "Use jittered backoff for retries\nBeware: fixed delays synchronise the clients and they retry in waves.", f.Text)
			require.Equal(t, merged, f.Source.Ref, "the merged commit is the source")
			require.Equal(t, mgBranch, f.Source.Branch)
		case "done":
			require.Contains(t, f.Text, f.Source.Agent)
			require.Equal(t, map[string]string{"mg": mgBranch, "dl": dlBranch, "dn": e.Find(repo, "dn").Branch}[f.Source.Agent], f.Source.Branch)
		}
	}
	require.ElementsMatch(t, []string{"commit:mg:gotcha", "done:dn:fact", "done:mg:fact", "done:dl:fact"}, sources)

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
	// dl's branch was deleted unmerged: what was learned there is stale;
	// mg's went only after it landed, dn's is there.
	require.Regexp(t, `stale fact #\d+: its branch `+dlBranch+` was deleted without being merged`, rep)
	for _, f := range e.facts(repo, "list") {
		if f.Source.Agent == "dl" {
			require.Equal(t, "its branch "+dlBranch+" was deleted without being merged", f.Stale)
		} else {
			require.Empty(t, f.Stale, "%s's fact %q", f.Source.Agent, f.Text)
		}
	}
	var runTests int
	for _, f := range e.facts(repo, "list") {
		if strings.Contains(f.Text, "-race") {
			runTests++
		}
	}
	require.Equal(t, 1, runTests, "the duplicate is folded")
	require.Contains(t, e.MustOwt(repo, "memory", "reports"), "contradiction")

	// A summary mined while its agent lived is not mined again once the
	// agent is gone.
	e.MustOwt(repo, "delete", "dn", "--force")
	require.Contains(t, e.MustOwt(repo, "memory", "mine"), "mined 0 new fact(s)")
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

// holdMemoryLock holds the repository's memory database locked the way a
// wedged process would (exclusive locking mode, a write transaction
// open), until the test ends or release is called: no other connection
// can read or write it.
func holdMemoryLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(2000)")
	require.NoError(t, err)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	for _, q := range []string{"PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "INSERT INTO reports(at, body) VALUES (0, 'held by the test')"} {
		_, err := conn.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
			_ = conn.Close()
			_ = db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// A memory database another process holds locked: owt memory add says so
// in one line and fails; owt new is not held by it — the agent starts,
// without facts, within the injection's bound, and says so.
func TestMemoryLockedDatabase(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "memory", "add", "--pin", "Always run make lint before committing")
	dbs, err := filepath.Glob(filepath.Join(e.Var("XDG_DATA_HOME"), "owt", "memory", "*.db"))
	require.NoError(t, err)
	require.Len(t, dbs, 1)
	release := holdMemoryLock(t, dbs[0])

	r := e.Owt(repo, "memory", "add", "The cache folder must be cleared after schema changes")
	require.NotEqual(t, 0, r.Code, r.Stdout)
	require.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line: %q", r.Stderr)
	require.Contains(t, r.Stderr, "memory database is locked: another process has held "+dbs[0])
	require.Contains(t, r.Stderr, "nothing was changed, try again")

	start := time.Now()
	r = e.Owt(repo, "new", "--tool", "claude", "--no-setup", "--name", "x", "a task")
	took := time.Since(start)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "memory: no facts injected: the memory did not answer within 5s")
	require.Contains(t, r.Stderr, "the agent starts without facts")
	require.Less(t, took, 9*time.Second, "bounded by the injection's timeout, not the database's busy wait")
	it := e.Find(repo, "x")
	e.Eventually(15*time.Second, "the agent started", func() bool { _, ok := e.Start(it.Name); return ok })
	require.NoFileExists(t, filepath.Join(it.Path, "CLAUDE.local.md"), "no facts written")

	release()
	require.Regexp(t, `^remembered #\d+`, e.MustOwt(repo, "memory", "add", "The cache folder must be cleared after schema changes"))
	require.Len(t, e.facts(repo, "list"), 2, "nothing the lock refused was half-written")
}

// requireInert fails on a control character in out other than a newline
// or a tab: an escape sequence, a bell, a carriage return, a backspace,
// a C1 control.
func requireInert(t *testing.T, out, what string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("%s: control character %U at byte %d in:\n%q", what, r, i, out)
		}
	}
}

// A fact carrying terminal escapes and control characters is stored as
// given but drawn inert wherever owt shows it: owt memory list, search
// and owt new --dry-run.
func TestMemoryHostileFactTextIsDrawnInert(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	hostile := "hostile \x1b[31mred\x1b[0m \x1b]52;c;aGk=\x07clip \x1b]0;title\x1b\\ bell\x07 cr\rback\x08 csi\u009b2J end"
	e.MustOwt(repo, "memory", "add", "--pin", hostile)
	var stored []factJSON
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "memory", "list", "--json")), &stored))
	require.Len(t, stored, 1)
	require.Equal(t, hostile, stored[0].Text, "kept as given; only its drawing is inert")

	for _, args := range [][]string{{"memory", "list"}, {"memory", "search", "hostile"}} {
		out := e.MustOwt(repo, args...)
		require.Contains(t, out, "hostile", "%v shows the fact", args)
		require.Contains(t, out, "red", "%v", args)
		requireInert(t, out, strings.Join(args, " "))
	}
	r := e.Owt(repo, "new", "--dry-run", "--tool", "claude", "--template", "bugfix", "fix the hostile input")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "memory: 1 fact(s)")
	require.Contains(t, r.Stdout, "hostile")
	requireInert(t, r.Stdout, "owt new --dry-run")
	requireInert(t, r.Stderr, "owt new --dry-run (stderr)")
}
