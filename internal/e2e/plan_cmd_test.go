package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// owt plan runs a tool headless in the repository, takes the TOML it
// answers, holds it to the plan parser and writes it (or prints it);
// owt orchestrate is owt run start with --into.

const draftAnswer = "Here is a plan.\n\n```toml\n[run]\nmax_concurrent = 2\n\n[[task]]\nid = \"models\"\ntask = \"Create the models\"\n\n" +
	"[[task]]\nid = \"api\"\ntask = \"Add the API\"\ndepends_on = [\"models\"]\n```\n\nStart it with owt.\n"

func TestPlanAsksTheToolHeadlessAndWritesAValidPlan(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	answer := filepath.Join(e.Root, "answer.txt")
	require.NoError(t, os.WriteFile(answer, []byte(draftAnswer), 0o644))
	env := []string{"OWT_FAKE_ANSWER=" + answer}
	sub := filepath.Join(repo, "src")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	// Each built-in tool's headless command line, as the real CLIs take it.
	headless := map[string][]string{"claude": {"-p"}, "codex": {"exec"}, "gemini": {"-p"}, "opencode": {"run"}}
	for tool, prefix := range headless {
		out := filepath.Join(e.Root, tool+".toml")
		r := e.OwtIn(sub, env, "", "plan", "add login with tokens", "-o", out, "--tool", tool)
		require.Equal(t, 0, r.Code, "%s: %s", tool, r.Stderr)
		require.Contains(t, r.Stdout, "wrote "+out+": 2 tasks in 2 waves")
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), "[run]\nmax_concurrent = 2\n"), string(data))
		require.NotContains(t, string(data), "Here is a plan")

		var start fixture.AgentEvent
		for _, ev := range e.Events() {
			if ev.Event == "start" && ev.Persona == tool {
				start = ev
			}
		}
		require.Equal(t, repo, start.Cwd, "%s runs with the repo as its cwd", tool)
		require.Equal(t, prefix, start.Argv[:len(prefix)], tool)
		prompt := start.Argv[len(start.Argv)-1]
		require.Contains(t, prompt, "Goal:\nadd login with tokens")
		require.Contains(t, prompt, "[[task]]")
		require.Contains(t, prompt, "depends_on")
	}
	require.Empty(t, e.Git(repo, "status", "--porcelain"), "nothing written into the checkout")

	// What it wrote is a plan owt run start takes.
	e.MustOwt(repo, "run", "start", "--dry-run", filepath.Join(e.Root, "claude.toml"))

	// Without -o it prints the plan, and writes nothing.
	r := e.OwtIn(repo, env, "", "plan", "add login", "--tool", "claude")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.True(t, strings.HasPrefix(r.Stdout, "[run]\n"), r.Stdout)
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// An existing FILE is kept unless --force.
	e.WriteFile(repo, "mine.toml", "my own\n")
	r = e.OwtIn(repo, env, "", "plan", "add login", "--tool", "claude", "-o", "mine.toml")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "mine.toml exists: give --force")
	data, _ := os.ReadFile(filepath.Join(repo, "mine.toml"))
	require.Equal(t, "my own\n", string(data))
	require.NoError(t, os.Chmod(filepath.Join(repo, "mine.toml"), 0o640))
	r = e.OwtIn(repo, env, "", "plan", "add login", "--tool", "claude", "-o", "mine.toml", "--force")
	require.Equal(t, 0, r.Code, r.Stderr)
	data, _ = os.ReadFile(filepath.Join(repo, "mine.toml"))
	require.Contains(t, string(data), `id = "api"`)
	fi, err := os.Stat(filepath.Join(repo, "mine.toml"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "an overwritten file keeps its mode")

	// --force on a file that is not there yet writes it.
	r = e.OwtIn(repo, env, "", "plan", "add login", "--tool", "claude", "-o", "new.toml", "--force")
	require.Equal(t, 0, r.Code, r.Stderr)
	data, _ = os.ReadFile(filepath.Join(repo, "new.toml"))
	require.Contains(t, string(data), `id = "api"`)
}

func TestPlanWithAnInvalidAnswerExits1NamingTheProblemsAndWritesNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	answer := filepath.Join(e.Root, "answer.txt")
	bad := "```toml\n[run]\nmax_concurent = 2\n\n[[task]]\nid = \"a\"\ntask = \"A\"\ndepends_on = [\"ghost\"]\n```\n"
	require.NoError(t, os.WriteFile(answer, []byte(bad), 0o644))

	r := e.OwtIn(repo, []string{"OWT_FAKE_ANSWER=" + answer}, "", "plan", "add login", "--tool", "claude", "-o", "plan.toml")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "run.max_concurent: unknown key")
	require.Contains(t, r.Stderr, "ghost")
	require.Contains(t, r.Stderr, "nothing written")
	kept := regexp.MustCompile(`kept in (\S+owt-plan-answer-\S+\.txt)`).FindStringSubmatch(r.Stderr)
	require.NotNil(t, kept, r.Stderr)
	data, err := os.ReadFile(kept[1])
	require.NoError(t, err)
	require.Equal(t, bad, string(data), "the raw answer, for the user to read or fix")
	require.True(t, strings.HasPrefix(kept[1], e.Var("TMPDIR")), "in the temp dir: %s", kept[1])
	_, err = os.Stat(filepath.Join(repo, "plan.toml"))
	require.True(t, os.IsNotExist(err), "no plan written")
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// A tool that fails is said so, its answer kept too; bad usage is exit 2.
	r = e.OwtIn(repo, []string{"OWT_FAKE_ANSWER=" + filepath.Join(e.Root, "missing")}, "", "plan", "add login", "--tool", "claude")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "claude -p exited with code 1")
	require.Regexp(t, `kept in \S+\.txt`, r.Stderr)
	require.Equal(t, 2, e.Owt(repo, "plan").Code)
	require.Equal(t, 2, e.Owt(repo, "plan", "x", "--tool", "nosuch").Code)
}

func TestOrchestrateRegistersARunLandingInInto(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "auth.toml", authPlan)
	out := e.MustOwt(repo, "-S", filepath.Join(e.Root, "no-server"), "orchestrate", "auth.toml", "--into", "feat/other", "--name", "orch")
	require.Contains(t, out, "registered run orch")
	require.Contains(t, out, "done tasks land in feat/other")
	require.Equal(t, "feat/other", e.runStatus(repo, "orch").Into)

	r := e.Owt(repo, "orchestrate", "auth.toml", "--into", "bad..name", "--name", "orch2")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "--into")
	require.NotContains(t, e.MustOwt(repo, "run", "list"), "orch2")
}
