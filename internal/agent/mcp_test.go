package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

var testServer = MCPServer{
	Command: "/opt/my owt/owt",
	Args:    []string{"mcp"},
	Env:     map[string]string{"OWT_NAME": "a", "OWT_REPO": `/src/"app"`},
}

func TestMCPArgsCodexIsOneTOMLOverride(t *testing.T) {
	args, err := MCPArgs(MCPCodex, testServer, "")
	require.NoError(t, err)
	require.Len(t, args, 2)
	require.Equal(t, "-c", args[0])
	key, value, ok := strings.Cut(args[1], "=")
	require.True(t, ok)
	require.Equal(t, "mcp_servers.owt", key)
	var got struct {
		V struct {
			Command string
			Args    []string
			Env     map[string]string
			// Approve: owt's tools are called without asking.
			Approve string `toml:"default_tools_approval_mode"`
		}
	}
	_, err = toml.Decode("V = "+value, &got)
	require.NoError(t, err, value)
	require.Equal(t, "approve", got.V.Approve)
	require.Equal(t, testServer.Command, got.V.Command)
	require.Equal(t, testServer.Args, got.V.Args)
	require.Equal(t, testServer.Env, got.V.Env)
}

func TestMCPArgsClaudeIsOneWord(t *testing.T) {
	// --mcp-config takes several values: "--mcp-config F task" would read
	// the task as a second file.
	args, err := MCPArgs(MCPClaude, testServer, "/state/a.json")
	require.NoError(t, err)
	// owt's tools are allowed without asking, by one rule for the server.
	require.Equal(t, []string{"--mcp-config=/state/a.json", "--allowedTools=mcp__owt"}, args)
	for _, kind := range []string{MCPGemini, MCPOpenCode, ""} {
		args, err := MCPArgs(kind, testServer, "")
		require.NoError(t, err)
		require.Nil(t, args, kind)
	}
}

func TestClaudeMCPConfig(t *testing.T) {
	data, err := ClaudeMCPConfig(testServer)
	require.NoError(t, err)
	var f struct {
		MCPServers map[string]claudeServer `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, claudeServer{Command: testServer.Command, Args: testServer.Args, Env: testServer.Env}, f.MCPServers["owt"])
}

func TestOpenCodeMCPContentKeepsTheUsersInlineConfig(t *testing.T) {
	got, err := OpenCodeMCPContent("", testServer)
	require.NoError(t, err)
	require.JSONEq(t, `{"mcp":{"owt":{"type":"local","command":["/opt/my owt/owt","mcp"],"environment":{"OWT_NAME":"a","OWT_REPO":"/src/\"app\""},"enabled":true}}}`, got)

	got, err = OpenCodeMCPContent(`{"model":"m","mcp":{"mine":{"type":"remote","url":"u"}}}`, testServer)
	require.NoError(t, err)
	var v struct {
		Model string
		MCP   map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	require.Equal(t, "m", v.Model)
	require.Contains(t, v.MCP, "mine")
	require.Contains(t, v.MCP, "owt")

	_, err = OpenCodeMCPContent(`not json`, testServer)
	require.Error(t, err)
}

func TestMergeMCPSettingsKeepsTheUsersAndStripsBack(t *testing.T) {
	user := []byte(`{
  "theme": "dark",
  "mcpServers": {
    "mine": {"command": "my-server", "args": ["--x"]}
  }
}`)
	withHooks, err := MergeHookSettings(user, "gemini", "/usr/bin/owt")
	require.NoError(t, err)
	merged, err := MergeMCPSettings(withHooks, testServer)
	require.NoError(t, err)
	var v struct {
		Theme      string
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(merged, &v))
	require.Equal(t, "dark", v.Theme)
	require.Contains(t, v.MCPServers, "mine")
	require.Contains(t, v.MCPServers, "owt")
	require.Contains(t, string(v.MCPServers["owt"]), `"trust": true`, "owt's tools are called without a confirmation")

	// Merged twice: one owt entry, still the user's.
	again, err := MergeMCPSettings(merged, testServer)
	require.NoError(t, err)
	require.Equal(t, string(merged), string(again))

	stripped, err := StripHookSettings(merged)
	require.NoError(t, err)
	require.True(t, SameSettings(stripped, user), "%s", stripped)

	// No servers of the user's: nothing of mcpServers is left.
	alone, err := MergeMCPSettings(nil, testServer)
	require.NoError(t, err)
	stripped, err = StripHookSettings(alone)
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(stripped))

	// A user's own server named owt that is not owt mcp stays.
	theirs := []byte(`{"mcpServers":{"owt":{"command":"/bin/other","args":["x"]}}}`)
	stripped, err = StripHookSettings(theirs)
	require.NoError(t, err)
	require.True(t, SameSettings(stripped, theirs))
}

func TestMCPRegistrationFollowsConfig(t *testing.T) {
	cfg := config.Defaults()
	no := false
	cfg.Tools = map[string]config.Tool{"gemini": {MCP: &no}}
	ps, err := Profiles(cfg)
	require.NoError(t, err)
	require.Equal(t, MCPClaude, ps["claude"].MCPRegistration(cfg.MCP))
	require.Equal(t, MCPCodex, ps["codex"].MCPRegistration(cfg.MCP))
	require.Equal(t, MCPOpenCode, ps["opencode"].MCPRegistration(cfg.MCP))
	require.Equal(t, "", ps["gemini"].MCPRegistration(cfg.MCP), "[tools.gemini] mcp = false")
	require.Equal(t, "", ps["aider"].MCPRegistration(cfg.MCP), "no way to register")
	cfg.MCP.Enabled = false
	require.Equal(t, "", ps["claude"].MCPRegistration(cfg.MCP), "[mcp] enabled = false")
}

func TestOwtMCPPassesIdentityAndStateDirs(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/tmp/st")
	xdg.Reload() // the XDG directories are read once, at start
	s := OwtMCP("/bin/owt", "a", "/src/app", "")
	require.Equal(t, "/bin/owt", s.Command)
	require.Equal(t, []string{"mcp"}, s.Args)
	require.Equal(t, "a", s.Env["OWT_NAME"])
	require.Equal(t, "/src/app", s.Env["OWT_REPO"])
	require.Equal(t, "/tmp/st", s.Env["XDG_STATE_HOME"])
}

// A user's own server called "owt" is kept: owt's takes "owt-peers",
// and stripping owt's leaves theirs.
func TestMCPSettingsKeepAUsersOwnOwtServer(t *testing.T) {
	user := []byte(`{"mcpServers": {"owt": {"command": "/usr/local/bin/owt-custom", "args": ["serve"]}}}`)
	s := OwtMCP("/bin/owt", "a", "/repo", "")
	merged, err := MergeMCPSettings(user, s)
	require.NoError(t, err)
	var got struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(merged, &got), "%s", merged)
	require.Equal(t, "/usr/local/bin/owt-custom", got.MCPServers["owt"].Command, "the user's is kept")
	require.Equal(t, "/bin/owt", got.MCPServers["owt-peers"].Command)
	again, err := MergeMCPSettings(merged, s)
	require.NoError(t, err)
	require.Equal(t, string(merged), string(again), "merging twice changes nothing")
	top := &orderedObject{}
	require.NoError(t, top.UnmarshalJSON(merged))
	removed, err := stripOwtMCP(top)
	require.NoError(t, err)
	require.True(t, removed)
	out, err := top.MarshalJSON()
	require.NoError(t, err)
	require.Contains(t, string(out), "owt-custom")
	require.NotContains(t, string(out), "owt-peers")
}

// The agent's secret is in each registration as the tool hands it to its
// server, and never on a command line nor in the worktree's settings file
// (which name the variable the tool's own environment holds).
func TestMCPSecretIsOnNoCommandLineNorInTheWorktree(t *testing.T) {
	s := OwtMCP("/bin/owt", "a", "/repo", "s3cret")
	claude, err := ClaudeMCPConfig(s)
	require.NoError(t, err)
	require.Contains(t, string(claude), `"OWT_MCP_TOKEN":"s3cret"`, "Claude's 0600 file outside the worktree")
	for _, kind := range []string{MCPClaude, MCPCodex} {
		args, err := MCPArgs(kind, s, "/state/a.json")
		require.NoError(t, err)
		require.NotContains(t, strings.Join(args, " "), "s3cret", kind)
	}
	codex, err := MCPArgs(MCPCodex, s, "")
	require.NoError(t, err)
	require.Contains(t, codex[1], `env_vars=["OWT_MCP_TOKEN"]`)
	require.Equal(t, "OWT_MCP_TOKEN=s3cret", SecretEnv(s))
	gemini, err := MergeMCPSettings(nil, s)
	require.NoError(t, err)
	require.NotContains(t, string(gemini), "s3cret")
	require.Contains(t, string(gemini), `"OWT_MCP_TOKEN": "${OWT_MCP_TOKEN}"`)
	oc, err := OpenCodeMCPContent("", s)
	require.NoError(t, err)
	require.Contains(t, oc, `"OWT_MCP_TOKEN":"s3cret"`, "OpenCode's config content, in its own environment")
}
