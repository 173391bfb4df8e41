package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// How each tool learns about owt mcp, the peers server (Profile.MCP). Each
// was checked against the installed CLI (Claude Code 2.1.330, Codex
// 0.169.0, Gemini CLI, OpenCode), whose own listing then shows the server
// connected:
//
//	claude    --mcp-config=FILE, a JSON file in owt's state dir. Servers
//	          given this way are "dynamic": no approval, and the user's
//	          own servers (.mcp.json, ~/.claude.json) still load.
//	codex     -c mcp_servers.owt={…} on the command line: overrides that
//	          one key of the config files, so the user's servers stay.
//	gemini    mcpServers.owt merged into the worktree's
//	          .gemini/settings.json, with owt's hooks; Gemini enables
//	          project servers once the user trusts the folder, which it
//	          asks for on every new folder anyway.
//	opencode  OPENCODE_CONFIG_CONTENT in the agent's environment: inline
//	          config that OpenCode merges over its global and project
//	          files, so nothing is written into the worktree.
const (
	MCPClaude   = "claude"
	MCPCodex    = "codex"
	MCPGemini   = "gemini"
	MCPOpenCode = "opencode"
)

// MCPName is the name owt's server is registered under in every tool.
const MCPName = "owt"

// MCPServer is how a tool starts owt mcp for one agent: owt by absolute
// path, and the environment it needs. Tools start MCP servers with a
// reduced environment (Codex, Gemini), so who the agent is and where owt
// keeps its state are passed explicitly.
type MCPServer struct {
	Command string
	Args    []string
	Env     map[string]string
	// Secret is the agent's MCP secret (state.NewMCPToken), which each
	// registration hands the server as state.MCPTokenEnv: written into
	// Claude's 0600 --mcp-config file and OpenCode's config content; for
	// Codex and Gemini the registration names the variable and the tool's
	// own environment holds it (SecretEnv), so it is on no command line
	// and in no worktree file.
	Secret string
}

// SecretEnv is the secret as the tool's own environment holds it: the
// registrations of Codex (env_vars) and Gemini (${VAR}) only name it,
// and the agent's shell commands inherit it from every tool, so an owt
// new of the agent's is known as its even out of its process tree
// (lifecycle.CallingAgent). kind's registration may hold it as well.
func SecretEnv(s MCPServer) string {
	if s.Secret == "" {
		return ""
	}
	return state.MCPTokenEnv + "=" + s.Secret
}

// withSecret is s's Env with the secret in it.
func (s MCPServer) withSecret() map[string]string {
	if s.Secret == "" {
		return s.Env
	}
	env := make(map[string]string, len(s.Env)+1)
	for k, v := range s.Env {
		env[k] = v
	}
	env[state.MCPTokenEnv] = s.Secret
	return env
}

// mcpEnvPassed are the variables owt mcp needs besides the agent's name
// and repository: where owt's state is, when not in the default place.
var mcpEnvPassed = []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "TMUX_TMPDIR"}

// OwtMCP is the server of agent name in repository repo, run by the owt
// binary at owt, with the XDG directories of this process and the agent's
// secret ("" where the registration is written before the agent starts:
// Gemini's settings, which take it from the tool's environment).
func OwtMCP(owt, name, repo, secret string) MCPServer {
	env := map[string]string{"OWT_NAME": name, "OWT_REPO": repo}
	for _, k := range mcpEnvPassed {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			env[k] = v
		}
	}
	return MCPServer{Command: owt, Args: []string{"mcp"}, Env: env, Secret: secret}
}

// MCPRegistration is how this tool gets owt mcp under cfg: its MCP kind,
// or "" when it gets none ([mcp] enabled = false, [tools.X] mcp = false,
// or a tool owt cannot register a server with).
func (p Profile) MCPRegistration(cfg config.MCP) string {
	if !cfg.Enabled || p.MCPOff {
		return ""
	}
	return p.MCP
}

// MCPArgs returns the arguments that register s with a tool that takes
// them on its command line: Claude's --mcp-config (file is the JSON file
// ClaudeMCPConfig wrote) and Codex's -c override; nil for the others.
func MCPArgs(kind string, s MCPServer, file string) ([]string, error) {
	switch kind {
	case MCPClaude:
		// One word: --mcp-config takes several values, and the next
		// argument may be the task.
		// owt's own tools run without asking: each is bounded by owt
		// (the loop guard, max_spawned) and none edits the worktree, so
		// an agent is not stalled at every call to its peers.
		return []string{"--mcp-config=" + file, "--allowedTools=" + ClaudeMCPRule}, nil
	case MCPCodex:
		v, err := codexInlineTable(s)
		if err != nil {
			return nil, err
		}
		return []string{"-c", "mcp_servers." + MCPName + "=" + v}, nil
	}
	return nil, nil
}

// ClaudeMCPRule is Claude Code's permission rule for every tool of owt's
// server ("mcp__SERVER" matches all of that server's tools).
const ClaudeMCPRule = "mcp__" + MCPName

// claudeServer is one entry of Claude's and Gemini's mcpServers. Trust is
// Gemini's: its tools are called without a confirmation.
type claudeServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	Trust   bool              `json:"trust,omitempty"`
}

// ClaudeMCPConfig is the --mcp-config file that registers s.
func ClaudeMCPConfig(s MCPServer) ([]byte, error) {
	data, err := marshalNoEscape(map[string]any{"mcpServers": map[string]claudeServer{MCPName: {Command: s.Command, Args: s.Args, Env: s.withSecret()}}})
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// codexInlineTable writes s as a TOML inline table (JSON strings are TOML
// basic strings): {command="…",args=["mcp"],env={K="v"}}.
func codexInlineTable(s MCPServer) (string, error) {
	str := func(v string) (string, error) {
		b, err := marshalNoEscape(v)
		return string(b), err
	}
	var b strings.Builder
	cmd, err := str(s.Command)
	if err != nil {
		return "", err
	}
	b.WriteString("{command=" + cmd + ",args=[")
	for i, a := range s.Args {
		q, err := str(a)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(q)
	}
	b.WriteString("],env={")
	for i, k := range sortedKeys(s.Env) {
		q, err := str(s.Env[k])
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + q)
	}
	b.WriteString("}")
	if s.Secret != "" {
		// The secret comes from Codex's own environment (SecretEnv): a
		// command line is anyone's to read with ps.
		b.WriteString(`,env_vars=["` + state.MCPTokenEnv + `"]`)
	}
	// "approve": owt's tools are called without asking (see MCPArgs).
	b.WriteString(`,default_tools_approval_mode="approve"}`)
	return b.String(), nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// OpenCodeConfigEnv is the name of the variable OpenCode reads inline
// config from.
const OpenCodeConfigEnv = "OPENCODE_CONFIG_CONTENT"

// OpenCodeMCPContent returns the OPENCODE_CONFIG_CONTENT that registers s:
// current (the user's own value, "" when unset) with mcp.owt set in it.
// A value that is not a JSON object is the user's and an error.
func OpenCodeMCPContent(current string, s MCPServer) (string, error) {
	top := &orderedObject{}
	if strings.TrimSpace(current) != "" {
		if err := top.UnmarshalJSON([]byte(current)); err != nil {
			return "", fmt.Errorf("%s is not a JSON object: %w", OpenCodeConfigEnv, err)
		}
	}
	servers := &orderedObject{}
	if raw, ok := top.Get("mcp"); ok && !isNull(raw) {
		if err := servers.UnmarshalJSON(raw); err != nil {
			return "", fmt.Errorf("%s: \"mcp\" is not an object: %w", OpenCodeConfigEnv, err)
		}
	}
	entry := struct {
		Type        string            `json:"type"`
		Command     []string          `json:"command"`
		Environment map[string]string `json:"environment,omitempty"`
		Enabled     bool              `json:"enabled"`
	}{"local", append([]string{s.Command}, s.Args...), s.withSecret(), true}
	if err := servers.SetValue(mcpKeyIn(servers), entry); err != nil {
		return "", err
	}
	if err := top.SetValue("mcp", servers); err != nil {
		return "", err
	}
	b, err := top.MarshalJSON()
	return string(b), err
}

// MergeMCPSettings returns a Gemini settings file with s as
// mcpServers.owt. Everything else is kept: other keys, the user's servers,
// their order. data may be empty (no file yet).
func MergeMCPSettings(data []byte, s MCPServer) ([]byte, error) {
	top := &orderedObject{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := top.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("settings file is not a JSON object: %w", err)
		}
	}
	servers := &orderedObject{}
	if raw, ok := top.Get("mcpServers"); ok && !isNull(raw) {
		if err := servers.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("settings file: \"mcpServers\" is not an object: %w", err)
		}
	}
	// One settings file serves every agent of the worktree (a swarm's
	// members too): Gemini resolves ${VAR:-default} in settings from its
	// own environment, so each member's server acts as that member
	// (OWT_NAME of its window), the worktree's agent by default.
	env := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		env[k] = v
	}
	if name, ok := env["OWT_NAME"]; ok {
		env["OWT_NAME"] = "${OWT_NAME:-" + name + "}"
	}
	// The secret is made when the agent starts, after this file is
	// written, and the runner puts it in Gemini's own environment: the
	// file, in the worktree, holds only its name.
	env[state.MCPTokenEnv] = "${" + state.MCPTokenEnv + "}"
	if err := servers.SetValue(mcpKeyIn(servers), claudeServer{Command: s.Command, Args: s.Args, Env: env, Trust: true}); err != nil {
		return nil, err
	}
	if err := top.SetValue("mcpServers", servers); err != nil {
		return nil, err
	}
	return indentSettings(top)
}

// mcpKeyIn is the key owt's server takes among servers: MCPName, unless
// the user has a server of their own under it (not "owt mcp"), which is
// kept: then MCPAltName.
func mcpKeyIn(servers *orderedObject) string {
	if raw, ok := servers.Get(MCPName); ok && !isOwtServer(raw) {
		return MCPAltName
	}
	return MCPName
}

// MCPAltName is owt's key when the user's own server is called MCPName.
const MCPAltName = "owt-peers"

// isOwtServer reports whether a server entry runs "owt mcp", for any owt
// binary: Claude's and Gemini's shape (command, args), or OpenCode's
// (command as one argv).
func isOwtServer(raw json.RawMessage) bool {
	var s struct {
		Command json.RawMessage `json:"command"`
		Args    []string        `json:"args"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	var cmd string
	var argv []string
	if json.Unmarshal(s.Command, &cmd) == nil {
		argv = append([]string{cmd}, s.Args...)
	} else if json.Unmarshal(s.Command, &argv) != nil {
		return false
	}
	return len(argv) == 2 && strings.HasPrefix(filepath.Base(argv[0]), "owt") && argv[1] == "mcp"
}

// stripOwtMCP removes owt's server (mcpServers.owt running "owt mcp", for
// any owt binary) from top, and mcpServers when nothing else is left in
// it. It reports whether it removed anything.
func stripOwtMCP(top *orderedObject) (bool, error) {
	raw, ok := top.Get("mcpServers")
	if !ok || isNull(raw) {
		return false, nil
	}
	servers := &orderedObject{}
	if err := servers.UnmarshalJSON(raw); err != nil {
		return false, nil // not owt's shape: the user's to keep
	}
	removed := false
	for _, key := range []string{MCPName, MCPAltName} {
		if entry, ok := servers.Get(key); ok && isOwtServer(entry) {
			servers.Delete(key)
			removed = true
		}
	}
	if !removed {
		return false, nil
	}
	if len(servers.Keys()) == 0 {
		top.Delete("mcpServers")
		return true, nil
	}
	return true, top.SetValue("mcpServers", servers)
}
