package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mcpCall is an "mcp" event of the fake agent's log: one !mcp call.
type mcpCall struct {
	Event   string `json:"event"`
	Agent   string `json:"agent"`
	Tool    string `json:"tool"`
	Result  string `json:"result"`
	IsError bool   `json:"is_error"`
	Error   string `json:"error"`
}

// mcpCalls are the !mcp calls agent name made, in order.
func (e *Env) mcpCalls(name string) []mcpCall {
	f, err := os.Open(e.Log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []mcpCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c mcpCall
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.Event == "mcp" && c.Agent == name {
			out = append(out, c)
		}
	}
	return out
}

// Agent A (the fake Claude Code, given owt mcp with --mcp-config as the
// real one is) asks owt mcp for its peers and messages B, which is busy:
// the message waits in the outbox and B gets "[from a] hello" as a
// prompt, once, after its turn is over.
func TestFakeAgentsTalkThroughOwtMCP(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "b", "Work a while\n!sleep 8")
	e.WaitPrompts("b", 1)
	a := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "a",
		"Tell b\n!mcp list_peers\n!mcp send_message {\"to\":\"b\",\"text\":\"hello\"}")

	var calls []mcpCall
	e.Eventually(30*time.Second, "a's two MCP calls", func() bool {
		calls = e.mcpCalls("a")
		return len(calls) >= 2
	})
	require.Equal(t, "list_peers", calls[0].Tool)
	require.False(t, calls[0].IsError, "%+v", calls[0])
	var peers struct {
		Me    string
		Peers []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(calls[0].Result), &peers), calls[0].Result)
	require.Equal(t, "a", peers.Me)
	require.Len(t, peers.Peers, 1)
	require.Equal(t, "b", peers.Peers[0].Name)

	require.Equal(t, "send_message", calls[1].Tool)
	require.False(t, calls[1].IsError, "%+v", calls[1])
	require.Contains(t, calls[1].Result, `"queued"`, "b is working: the message waits")

	// B gets it once its turn is over: a prompt of its own, never text
	// typed into its running turn (which the fake agent logs as queued).
	e.Eventually(60*time.Second, "b gets a's message", func() bool {
		return len(e.Prompts("b")) >= 2
	})
	time.Sleep(3 * time.Second) // a second delivery would come by now
	require.Equal(t, []string{"Work a while\n!sleep 8", "[from a] hello"}, e.Prompts("b"))
	for _, ev := range e.Events() {
		require.False(t, ev.Agent == "b" && ev.Event == "queued", "typed into b while it worked: %+v", ev)
	}
	// A's screen shows the calls.
	require.Contains(t, e.Capture("="+a.Session+":"), "owt - send_message (MCP)")
}

// Each fake tool reads owt's registration the way the real one does
// (Claude --mcp-config, Codex -c with the server's env, since Codex gives
// servers a reduced environment; Gemini's settings; OpenCode's
// OPENCODE_CONFIG_CONTENT), and its owt mcp knows who it is.
func TestEveryToolsAgentReachesOwtMCPAsItself(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	tools := []string{"claude", "codex", "gemini", "opencode"}
	for _, tool := range tools {
		newJSON(t, e, repo, "--tool", tool, "--no-setup", "--name", tool, "Who is there\n!mcp list_peers")
	}
	for _, tool := range tools {
		var calls []mcpCall
		e.Eventually(30*time.Second, tool+"'s MCP call", func() bool {
			calls = e.mcpCalls(tool)
			return len(calls) >= 1
		})
		require.False(t, calls[0].IsError, "%s: %+v", tool, calls[0])
		require.Empty(t, calls[0].Error, tool)
		var peers struct {
			Me    string
			Peers []struct{ Name string }
		}
		require.NoError(t, json.Unmarshal([]byte(calls[0].Result), &peers), calls[0].Result)
		require.Equal(t, tool, peers.Me)
	}
}

// [tools.X] mcp = false keeps owt mcp from one tool, [mcp] enabled = false
// from all: no flag, no settings entry.
func TestMCPRegistrationCanBeTurnedOff(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[tools.gemini]\nmcp = false\n")
	e.Git(repo, "add", ".owt.toml")
	e.Git(repo, "commit", "-q", "-m", "no mcp for gemini")
	g := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "g", "hi")
	newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "c", "hi")
	e.WaitPrompts("c", 1)
	start, _ := e.Start("c")
	require.Contains(t, strings.Join(start.Argv, " "), "--mcp-config=", "claude still gets it")
	data, err := os.ReadFile(filepath.Join(g.Path, ".gemini", "settings.json"))
	require.NoError(t, err)
	require.NotContains(t, string(data), "mcpServers")
	require.Contains(t, string(data), "hook gemini", "the hooks are there")

	e.WriteFile(repo, ".owt.toml", "[mcp]\nenabled = false\n")
	e.Git(repo, "commit", "-q", "-am", "no mcp at all")
	for _, tool := range []string{"claude", "codex"} {
		newJSON(t, e, repo, "--tool", tool, "--no-setup", "--name", "off-"+tool, "hi")
		e.WaitPrompts("off-"+tool, 1)
		start, _ := e.Start("off-" + tool)
		argv := strings.Join(start.Argv, " ")
		require.NotContains(t, argv, "--mcp-config", tool)
		require.NotContains(t, argv, "mcp_servers", tool)
	}
}

// Swarm members share one worktree but are each their own peer: the
// coordinator's tool reaches owt mcp as NAME/coordinator, and messages
// a worker, which gets it signed by the coordinator. Gemini reads one
// settings file for all of them, so owt's entry takes OWT_NAME from each
// member's own environment.
func TestSwarmMembersReachOwtMCPAsThemselves(t *testing.T) {
	t.Parallel() // its subtests are: let it overlap the other tests too
	for _, tool := range []string{"claude", "gemini"} {
		t.Run(tool, func(t *testing.T) {
			e := NewEnv(t)
			repo := e.NewRepo("app")
			out := e.MustOwt(repo, "swarm", "start", "--tool", tool, "--json", "--workers", "implementer", "add a greeting")
			var sw swarmJSON
			require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
			coord, impl := sw.Host+"/coordinator", sw.Host+"/implementer"
			for _, n := range []string{coord, impl} {
				e.Eventually(30*time.Second, n+" idle", func() bool { return e.Find(repo, n).Status == "idle" })
			}
			e.MustOwt(repo, "send", coord, "!mcp list_peers\n!mcp send_message {\"to\":\""+impl+"\",\"text\":\"start with the tests\"}")
			var calls []mcpCall
			e.Eventually(30*time.Second, "the coordinator's two MCP calls", func() bool {
				calls = e.mcpCalls(coord)
				return len(calls) >= 2
			})
			require.False(t, calls[0].IsError, calls[0].Result+calls[0].Error)
			require.Contains(t, calls[0].Result, `"me": "`+coord+`"`)
			require.Contains(t, calls[0].Result, `"name": "`+impl+`"`)
			require.False(t, calls[1].IsError, calls[1].Result+calls[1].Error)
			e.Eventually(30*time.Second, "the implementer got it", func() bool {
				return len(e.promptsWith(impl, "[from "+coord+"] start with the tests")) == 1
			})
		})
	}
}

// The designer/executor pattern with the agents' own tools: the lead (a
// fake Claude Code) spawns two executors through owt mcp; each does its
// task and reports back with send_message, which the lead gets as a
// prompt signed by it; a third spawn past [mcp] max_spawned is refused.
func TestSpawnedExecutorsReportBackToTheirSpawner(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[mcp]\nmax_spawned = 2\n")
	spawn := func(name string) string {
		task := "Build " + name + "\\n!mcp send_message {\\\"to\\\":\\\"lead\\\",\\\"text\\\":\\\"done: " + name + "\\\"}"
		return `!mcp spawn_agent {"task":"` + task + `","name":"` + name + `","tool":"claude"}`
	}
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "lead",
		"Design it\n"+spawn("ex1")+"\n"+spawn("ex2")+"\n"+spawn("ex3"))
	var calls []mcpCall
	e.Eventually(60*time.Second, "the lead's three spawns", func() bool {
		calls = e.mcpCalls("lead")
		return len(calls) >= 3
	})
	require.False(t, calls[0].IsError, calls[0].Result+calls[0].Error)
	require.False(t, calls[1].IsError, calls[1].Result+calls[1].Error)
	require.True(t, calls[2].IsError, "the third is past the limit: %s", calls[2].Result)
	require.Contains(t, calls[2].Result, "max_spawned = 2")
	for _, n := range []string{"ex1", "ex2"} {
		e.Eventually(60*time.Second, n+" reported back", func() bool {
			return len(e.promptsWith("lead", "[from "+n+"] done: "+n)) == 1
		})
	}
	for _, it := range e.List(repo) {
		require.NotEqual(t, "ex3", it.Name, "nothing made past the limit")
	}
}
