package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP servers the fake agent was given, read the way the tool it plays
// reads them, and "!mcp TOOL [JSON-ARGS]", which calls a tool of the one
// named "owt" over stdio with the SDK's client, as the real tool would
// when its model asked.

// mcpServer is a stdio MCP server as the tools configure one.
type mcpServer struct {
	Command string
	Args    []string
	Env     map[string]string
	// reduced: the tool starts it with a small default environment plus
	// Env (Codex), not with its own.
	reduced bool
	// EnvVars are variables of the tool's own environment it passes on
	// (Codex's env_vars).
	EnvVars []string
}

// mcpServers reads the persona's MCP configuration: Claude's
// --mcp-config (files or inline JSON), Codex's -c mcp_servers.*, Gemini's
// mcpServers in its user then project settings, OpenCode's "mcp" in its
// project config then OPENCODE_CONFIG_CONTENT. Later sources win.
func (a *app) mcpServers() (map[string]mcpServer, error) {
	out := map[string]mcpServer{}
	home, _ := os.UserHomeDir()
	switch a.p.name {
	case "claude", "demo":
		for _, v := range a.opts.values["mcp-config"] {
			data := []byte(v)
			if !strings.HasPrefix(strings.TrimSpace(v), "{") {
				var err error
				if data, err = os.ReadFile(v); err != nil {
					return nil, fmt.Errorf("--mcp-config: %w", err)
				}
			}
			if err := addClaudeServers(out, data); err != nil {
				return nil, fmt.Errorf("--mcp-config %s: %w", v, err)
			}
		}
	case "gemini":
		for _, path := range []string{filepath.Join(home, ".gemini", "settings.json"), filepath.Join(a.cwd, ".gemini", "settings.json")} {
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			if err := addClaudeServers(out, data); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		// Gemini resolves $VAR, ${VAR} and ${VAR:-default} in settings
		// values from its own environment.
		for name, s := range out {
			for k, v := range s.Env {
				s.Env[k] = expandGeminiVars(v)
			}
			out[name] = s
		}
	case "codex":
		for _, kv := range a.opts.values["config"] {
			key, val, ok := strings.Cut(kv, "=")
			name, ok2 := strings.CutPrefix(strings.TrimSpace(key), "mcp_servers.")
			if !ok || !ok2 || strings.Contains(name, ".") {
				continue // only whole tables: mcp_servers.NAME={…}
			}
			var v struct {
				V struct {
					Command string            `toml:"command"`
					Args    []string          `toml:"args"`
					Env     map[string]string `toml:"env"`
					EnvVars []string          `toml:"env_vars"`
				} `toml:"v"`
			}
			if _, err := toml.Decode("v = "+val, &v); err != nil {
				return nil, fmt.Errorf("-c %s: %w", key, err)
			}
			out[name] = mcpServer{Command: v.V.Command, Args: v.V.Args, Env: v.V.Env, EnvVars: v.V.EnvVars, reduced: true}
		}
	case "opencode":
		if data, err := os.ReadFile(filepath.Join(a.cwd, "opencode.json")); err == nil {
			if err := addOpenCodeServers(out, data); err != nil {
				return nil, fmt.Errorf("opencode.json: %w", err)
			}
		}
		if v := os.Getenv("OPENCODE_CONFIG_CONTENT"); v != "" {
			if err := addOpenCodeServers(out, []byte(v)); err != nil {
				return nil, fmt.Errorf("OPENCODE_CONFIG_CONTENT: %w", err)
			}
		}
	}
	return out, nil
}

func addClaudeServers(out map[string]mcpServer, data []byte) error {
	var f struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	for name, s := range f.MCPServers {
		out[name] = mcpServer{Command: s.Command, Args: s.Args, Env: s.Env}
	}
	return nil
}

func addOpenCodeServers(out map[string]mcpServer, data []byte) error {
	var f struct {
		MCP map[string]struct {
			Type        string            `json:"type"`
			Command     []string          `json:"command"`
			Environment map[string]string `json:"environment"`
			Enabled     *bool             `json:"enabled"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	for name, s := range f.MCP {
		if s.Type != "local" || len(s.Command) == 0 || s.Enabled != nil && !*s.Enabled {
			delete(out, name)
			continue
		}
		out[name] = mcpServer{Command: s.Command[0], Args: s.Command[1:], Env: s.Environment}
	}
	return nil
}

// codexDefaultEnv is what Codex passes to an MCP server of its own
// environment (its DEFAULT_ENV_VARS); the rest must be in the server's env.
var codexDefaultEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

// environ is the environment the tool starts s with.
func (s mcpServer) environ() []string {
	var env []string
	if s.reduced {
		for _, k := range append(codexDefaultEnv, s.EnvVars...) {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
	} else {
		env = os.Environ()
	}
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// mcpClient is the fake agent's one session with its "owt" server,
// started on first use and kept, as a real tool keeps its servers.
type mcpClient struct {
	mu   sync.Mutex
	sess *mcp.ClientSession
}

func (c *mcpClient) session(a *app) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, nil
	}
	servers, err := a.mcpServers()
	if err != nil {
		return nil, err
	}
	s, ok := servers["owt"]
	if !ok {
		return nil, fmt.Errorf("no MCP server named owt is configured for %s", a.p.name)
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = a.cwd
	cmd.Env = s.environ()
	client := mcp.NewClient(&mcp.Implementation{Name: "fakeagent-" + a.p.name, Version: "0.0.0-fake"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Command, err)
	}
	a.log.event("mcp_connect", "server", "owt", "command", append([]string{s.Command}, s.Args...))
	c.sess = sess
	return sess, nil
}

func (c *mcpClient) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		_ = c.sess.Close()
		c.sess = nil
	}
}

// doMCP handles "!mcp TOOL [JSON-ARGS]": it calls TOOL of the owt server,
// logs the result ("mcp" event: tool, args, result text, is_error) and
// shows the call and the result's first line.
func (a *app) doMCP(ctx context.Context, gen int, arg string) {
	tool, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	a.say(gen, a.toolLine("owt - "+tool+" (MCP)", rest))
	fail := func(err error) {
		a.log.event("mcp", "tool", tool, "args", rest, "error", err.Error())
		a.say(gen, "  ⎿  Error: "+err.Error())
	}
	if tool == "" {
		fail(fmt.Errorf("!mcp needs a tool name"))
		return
	}
	args := map[string]any{}
	if rest != "" {
		if err := json.Unmarshal([]byte(rest), &args); err != nil {
			fail(fmt.Errorf("arguments are not a JSON object: %w", err))
			return
		}
	}
	sess, err := a.mcp.session(a)
	if err != nil {
		fail(err)
		return
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		fail(err)
		return
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	result := strings.Join(text, "\n")
	a.log.event("mcp", "tool", tool, "args", args, "result", result, "is_error", res.IsError)
	first, _, _ := strings.Cut(strings.TrimSpace(result), "\n")
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(result)) == nil {
		first = compact.String() // a tool's JSON answer, on one line
	}
	if res.IsError {
		first = "Error: " + first
	}
	a.say(gen, "  ⎿  "+truncate(first, 70))
}

var geminiVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// expandGeminiVars is Gemini CLI's resolveEnvVarsInString: a variable
// that is not set keeps its default, else stays as written.
func expandGeminiVars(v string) string {
	return geminiVar.ReplaceAllStringFunc(v, func(m string) string {
		sub := geminiVar.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if val, ok := os.LookupEnv(name); ok {
			return val
		}
		if strings.Contains(m, ":-") {
			return sub[3]
		}
		return m
	})
}
