package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// A team commits .gemini/settings.json. owt merges its hooks into the
// worktree's copy and hides them from git with skip-worktree; that must
// not hide the agent's own edits of the file: delete refuses to lose them,
// check reports them, and ship commits them without owt's hooks.
func TestTrackedHookFileEditsAreWorkAndShipWithoutOwtsHooks(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	userLog := filepath.Join(e.Root, "user-hook.log")
	const rel = ".gemini/settings.json"
	// Four-space indentation: the commit ship makes must keep it.
	e.commitIn(repo, rel, fmt.Sprintf(`{
    "general": {
        "vimMode": true
    },
    "hooks": {
        "AfterAgent": [
            {
                "matcher": "",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo user-hook >> %s",
                        "timeout": 5000
                    }
                ]
            }
        ]
    }
}
`, userLog), "team gemini settings")

	g := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "g1", "Look around")
	require.Equal(t, 0, e.Owt(repo, "wait", "g1", "--timeout", "30s").Code)
	path := filepath.Join(g.Path, rel)

	// Installed: the user's hook kept, owt's added, both ran, git sees nothing.
	cmds := fixture.HookCommands(t, path)
	require.Equal(t, []string{"echo user-hook >> " + userLog, owtBin + " hook gemini AfterAgent"}, cmds["AfterAgent"])
	require.Equal(t, []string{owtBin + " hook gemini BeforeAgent"}, cmds["BeforeAgent"])
	logged, _ := os.ReadFile(userLog)
	require.Equal(t, "user-hook\n", string(logged))
	require.Empty(t, e.Git(g.Path, "status", "--porcelain"))
	require.Empty(t, e.check(repo, "g1").DirtyFiles, "owt's own hooks are not work")

	// The agent adds an MCP server at the end of the settings, the way an
	// edit tool does (owt's hooks stay).
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	end := strings.LastIndex(string(data), "}")
	require.Positive(t, end)
	edited := strings.TrimRight(string(data[:end]), "\n") +
		",\n  \"mcpServers\": {\"db\": {\"command\": \"db-mcp\", \"args\": [\"--read-only\"]}}\n}\n"
	e.WriteFile(g.Path, rel, edited)
	require.True(t, json.Valid([]byte(edited)), edited)
	require.Empty(t, e.Git(g.Path, "status", "--porcelain"), "skip-worktree hides the edit from git")

	// delete refuses without --force, naming the file, and changes nothing.
	before, wtBefore := e.settledSnapshot(repo), digest(t, g.Path)
	r := e.Owt(repo, "delete", "g1")
	requireOneLineError(t, r, "would lose work: 1 uncommitted file(s): "+rel)
	require.Equal(t, before, e.snapshot(repo))
	require.Equal(t, wtBefore, digest(t, g.Path))

	// check and list count it; merge (which commits nothing) refuses.
	require.Equal(t, []string{rel}, e.check(repo, "g1").DirtyFiles)
	require.Equal(t, 1, e.FindFresh(repo, "g1").Dirty)
	r = e.Owt(repo, "merge", "g1", "--yes")
	requireOneLineError(t, r, "uncommitted changes in 1 file(s): "+rel)
	require.Equal(t, before, e.snapshot(repo))

	// ship commits the agent's edit without owt's hooks, in HEAD's layout.
	mainBefore := e.Git(repo, "rev-parse", "main")
	out := e.MustOwt(repo, "ship", "g1", "-m", "Add the db MCP server", "--keep", "--yes")
	require.Contains(t, out, "committed 1 file(s) in g1")
	require.Equal(t, "Add the db MCP server", e.Git(repo, "log", "-1", "--format=%s", "main"))
	require.Equal(t, "M\t"+rel, e.Git(repo, "diff", "--name-status", mainBefore, "main"))
	shipped := e.Git(repo, "show", "main:"+rel)
	require.NotContains(t, shipped, owtBin, "owt's hooks are never committed")
	require.NotContains(t, shipped, " hook gemini ", "owt's hooks are never committed")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(shipped), &got), shipped)
	require.Equal(t, map[string]any{"db": map[string]any{"command": "db-mcp", "args": []any{"--read-only"}}}, got["mcpServers"])
	require.Equal(t, map[string]any{"vimMode": true}, got["general"])
	require.Contains(t, shipped, "\n        \"vimMode\": true\n", "HEAD's indentation is kept")
	numstat := strings.Fields(e.Git(repo, "diff", "--numstat", mainBefore, "main"))
	require.Contains(t, []string{"0", "1"}, numstat[1], "only the new key's lines changed: %s", e.Git(repo, "diff", mainBefore, "main"))
	// The user's checkout (clean, on main) was fast-forwarded to it.
	userCopy, err := os.ReadFile(filepath.Join(repo, rel))
	require.NoError(t, err)
	require.Equal(t, shipped, strings.TrimRight(string(userCopy), "\n"))
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// The worktree kept owt's hooks (the agent still reports), hidden;
	// nothing is left to lose, so delete goes through.
	cmds = fixture.HookCommands(t, path)
	require.Equal(t, []string{"echo user-hook >> " + userLog, owtBin + " hook gemini AfterAgent"}, cmds["AfterAgent"])
	require.Empty(t, e.Git(g.Path, "status", "--porcelain"))
	require.Empty(t, e.check(repo, "g1").DirtyFiles)
	e.MustOwt(repo, "delete", "g1")
	e.requireGone(repo, g)
}

// An untracked settings file owt wrote is hidden from git by info/exclude;
// what an agent adds to it is still work that delete must not lose.
func TestEditsToAnUntrackedHookFileAreWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "Configure things")
	settings := filepath.Join(it.Path, ".gemini", "settings.json")
	require.FileExists(t, settings)
	require.Empty(t, e.Git(it.Path, "status", "--porcelain"), "owt's own file is not work")
	e.Eventually(15*time.Second, "agent idle", func() bool { return e.Find(repo, it.Name).Status == "idle" })
	r := e.Owt(repo, "delete", it.Name)
	require.Equal(t, 0, r.Code, "nothing but owt's hooks: deletable: %s", r.Stderr)

	it = newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "Configure more")
	settings = filepath.Join(it.Path, ".gemini", "settings.json")
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	// The agent adds a server of its own beside owt's (as "gemini mcp add"
	// does).
	require.Contains(t, string(data), `"mcpServers": {`)
	edited := strings.Replace(string(data), `"mcpServers": {`, `"mcpServers": {"db": {"command": "db-mcp"}, `, 1)
	require.NoError(t, os.WriteFile(settings, []byte(edited), 0o644))
	r = e.Owt(repo, "delete", it.Name)
	require.NotEqual(t, 0, r.Code, "the agent's edit would be lost")
	require.Contains(t, r.Stderr, ".gemini/settings.json")
	require.FileExists(t, settings)
}

// owt's info/exclude line for a hook file goes once no worktree needs it,
// so it does not go on hiding the user's own file of that name; a line the
// user wrote is never touched.
func TestHookFileExcludeLineGoesWithTheLastWorktree(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	hasLine := func() bool {
		b, _ := os.ReadFile(exclude)
		for _, l := range strings.Split(string(b), "\n") {
			if l == "/.gemini/settings.json" {
				return true
			}
		}
		return false
	}
	a := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "a", "First")
	b := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "b", "Second")
	require.True(t, hasLine())
	e.MustOwt(repo, "delete", a.Name, "--force")
	require.True(t, hasLine(), "b still needs it")
	e.MustOwt(repo, "delete", b.Name, "--force")
	require.False(t, hasLine(), "gone with the last worktree")
	// The user's own checkout shows their file again.
	e.WriteFile(repo, ".gemini/settings.json", "{}\n")
	require.Contains(t, e.Git(repo, "status", "--porcelain"), ".gemini/")

	// A line the user wrote themselves stays.
	require.NoError(t, os.Remove(filepath.Join(repo, ".gemini", "settings.json")))
	f, err := os.OpenFile(exclude, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("/.gemini/settings.json\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	c := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "c", "Third")
	e.MustOwt(repo, "delete", c.Name, "--force")
	require.True(t, hasLine(), "the user's line is theirs")
}
