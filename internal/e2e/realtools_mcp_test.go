package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// owt mcp, registered with each real CLI the way that tool reads MCP
// servers: in a worktree owt made, the tool's own listing, run there with
// what owt gave the agent (its arguments, its environment), shows the
// server, and the tool connects to it (offline: the server is owt). The
// registration leaves git status clean and the user's own servers and
// settings in place.

// agentProcess returns the argv and environment of the process of this
// world whose command line holds needle: the agent as owt started it.
func (e *Env) agentProcess(needle string) (argv, env []string) {
	e.t.Helper()
	e.Eventually(60*time.Second, "an agent process with "+needle, func() bool {
		for _, pid := range e.processesWithHome() {
			dir := filepath.Join("/proc", strconv.Itoa(pid))
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			if !bytes.Contains(cmdline, []byte(needle)) {
				continue
			}
			environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
			argv = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			env = strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00")
			return true
		}
		return false
	})
	return argv, env
}

// argWith is the element of argv that starts with prefix, or the one after
// the element equal to prefix.
func argWith(t *testing.T, argv []string, prefix string) string {
	t.Helper()
	for i, a := range argv {
		if a == prefix && i+1 < len(argv) {
			return argv[i+1]
		}
		if strings.HasPrefix(a, prefix) {
			return a
		}
	}
	t.Fatalf("no %q in %q", prefix, argv)
	return ""
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// toolRun runs a real CLI in dir with the world's environment plus extra
// until it exits, or until its output (stdout and stderr, colours removed)
// holds want; then it is stopped. It returns that output.
func (e *Env) toolRun(dir string, extra []string, want string, argv ...string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(realToolsBin(e.t), argv[0]), argv[1:]...)
	cmd.Dir = dir
	cmd.Env = e.Environ(extra...)
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	pr, pw, err := os.Pipe()
	require.NoError(e.t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(e.t, cmd.Start(), "%v", argv)
	pw.Close()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		out.WriteString(ansi.ReplaceAllString(sc.Text(), "") + "\n")
		if want != "" && strings.Contains(out.String(), want) {
			break
		}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	pr.Close()
	return out.String()
}

// gitClean says the worktree has nothing for git status to show.
func (e *Env) gitClean(wt string) {
	e.t.Helper()
	require.Empty(e.t, e.Git(wt, "status", "--porcelain", "--untracked-files=all"), "owt's registration shows in git status")
}

func TestRealClaudeMCPRegistration(t *testing.T) {
	e := realEnv(t, "claude")
	repo := e.NewRepo("app")
	require.NoError(t, os.WriteFile(filepath.Join(e.Home, ".claude.json"), []byte(`{"hasCompletedOnboarding": true}`), 0o600))
	s := e.newReal(repo, "a", "claude", "say hi")
	e.expect(repo, "a", "waiting", "trust")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "a")

	// --mcp-config=FILE, one word (the flag takes several values), FILE
	// in owt's state dir.
	argv, _ := e.agentProcess("--mcp-config=")
	flag := argWith(t, argv, "--mcp-config=")
	file := strings.TrimPrefix(flag, "--mcp-config=")
	require.True(t, strings.HasPrefix(file, e.Var("XDG_STATE_HOME")+"/"), file)
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cfg), "%s", data)
	require.Equal(t, []string{"mcp"}, cfg.MCPServers["owt"].Args)
	require.Equal(t, "a", cfg.MCPServers["owt"].Env["OWT_NAME"])
	e.gitClean(wt)

	// claude mcp list shows only the servers of its config scopes, not
	// those given with --mcp-config (2.1.330: "hasDynamicMcpConfig:!1"):
	// claude's own listing of them is the init event of a print-mode run,
	// written before it calls the API.
	require.Contains(t, e.toolRun(wt, nil, "", "claude", "mcp", "list"), "No MCP servers configured")
	// With the rule that lets owt's tools run without asking, as owt
	// starts the agent: Claude takes it.
	allow := argWith(t, argv, "--allowedTools=")
	require.Equal(t, "--allowedTools=mcp__owt", allow)
	out := e.toolRun(wt, nil, `"subtype":"init"`, "claude", "-p", flag, allow, "--output-format", "stream-json", "--verbose", "say hi")
	var init struct {
		Tools      []string
		MCPServers []struct{ Name, Status, Source string } `json:"mcp_servers"`
	}
	line := out[strings.Index(out, `{"type":"system","subtype":"init"`):]
	require.NoError(t, json.Unmarshal([]byte(line[:strings.IndexByte(line, '\n')]), &init), out)
	require.Contains(t, init.MCPServers, struct{ Name, Status, Source string }{"owt", "connected", "dynamic"})
	for _, tool := range []string{"list_peers", "send_message", "check_messages", "get_peer_files", "share_note", "spawn_agent"} {
		require.Contains(t, init.Tools, "mcp__owt__"+tool)
	}

	// Trusting the folder leads straight to the login: no MCP server to
	// approve (servers given with --mcp-config need none).
	e.press(s, "Down", "Enter")
	v := e.expect(repo, "a", "waiting", "login")
	require.NotContains(t, strings.Join(v.Lines, "\n"), "MCP server")

	// Deleting the worktree removes the file.
	e.MustOwt(repo, "delete", "a", "--force")
	_, err = os.Stat(file)
	require.True(t, os.IsNotExist(err), "%s is left behind", file)
}

func TestRealCodexMCPRegistration(t *testing.T) {
	e := realEnv(t, "codex")
	repo := e.NewRepo("app")
	e.Set("CODEX_HOME", filepath.Join(e.Home, ".codex"))
	require.NoError(t, os.MkdirAll(e.Var("CODEX_HOME"), 0o700))
	e.newReal(repo, "a", "codex", "say hi")
	e.expect(repo, "a", "waiting", "login")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "a")

	argv, env := e.agentProcess("mcp_servers.owt=")
	override := argWith(t, argv, "mcp_servers.owt=")
	e.gitClean(wt)
	// The agent's MCP secret: in codex's own environment, which the
	// override names (env_vars), never on its command line.
	tok := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OWT_MCP_TOKEN="); ok {
			tok = v
		}
	}
	require.Len(t, tok, 64)
	require.Contains(t, override, `env_vars=["OWT_MCP_TOKEN"]`)
	require.NotContains(t, strings.Join(argv, " "), tok)

	// codex mcp list: the server, its command, its environment (masked).
	list := e.toolRun(wt, nil, "", "codex", "mcp", "list", "-c", override)
	require.Regexp(t, `(?m)^owt\s+\S*owt\S*\s+mcp\s+OWT_NAME=\*+, OWT_REPO=\*+.*\benabled\b`, list)
	// codex mcp list does not connect; a run does, before it reaches for
	// the API: rmcp logs the handshake with owt's server.
	run := e.toolRun(wt, []string{"RUST_LOG=rmcp::service=info"}, `Service initialized as client`,
		"codex", "exec", "--skip-git-repo-check", "-c", override, "say hi")
	require.Contains(t, run, "Service initialized as client")
	require.Regexp(t, `server_info: Some\(Implementation \{ name: "owt"`, run)
}

func TestRealGeminiMCPRegistration(t *testing.T) {
	e := realEnv(t, "gemini")
	// The user's own project settings, committed: a setting and a server
	// of theirs.
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".gemini/settings.json", `{
  "ui": {"hideTips": true},
  "mcpServers": {"mine": {"command": "my-mcp-server", "args": ["--flag"]}}
}
`)
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "gemini settings")
	s := e.newReal(repo, "g", "gemini", "say hi")
	e.expect(repo, "g", "waiting", "trust")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "g")

	var settings struct {
		UI         map[string]any             `json:"ui"`
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	data, err := os.ReadFile(filepath.Join(wt, ".gemini", "settings.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &settings), "%s", data)
	require.Equal(t, true, settings.UI["hideTips"])
	require.Contains(t, settings.MCPServers, "mine")
	require.Contains(t, settings.MCPServers, "owt")
	require.Contains(t, string(settings.MCPServers["owt"]), `"OWT_MCP_TOKEN": "${OWT_MCP_TOKEN}"`, "the secret's name, not the secret")
	e.gitClean(wt)

	// Untrusted, Gemini lists the servers as disabled; trusting the
	// folder (its first screen, Enter) enables them: no other approval.
	require.Contains(t, e.toolRun(wt, nil, "", "gemini", "mcp", "list"), "owt: ")
	e.press(s, "Enter")
	e.expect(repo, "g", "waiting", "login")
	list := e.toolRun(wt, nil, "", "gemini", "mcp", "list")
	require.Regexp(t, `✓ owt: \S*owt mcp \(stdio\) - Connected`, list)
	require.Contains(t, list, "mine: my-mcp-server --flag (stdio)")
	// (A repository without settings of its own, where owt's file is
	// hidden by info/exclude, is owt's part alone: the fake Gemini's
	// tests cover it.)
}

func TestRealOpenCodeMCPRegistration(t *testing.T) {
	e := realEnv(t, "opencode")
	// The user's project config, committed, with a server of theirs (and
	// the $schema OpenCode adds to a config file that lacks it).
	repo := e.NewRepo("app")
	e.WriteFile(repo, "opencode.json", `{"$schema": "https://opencode.ai/config.json", "mcp": {"mine": {"type": "local", "command": ["my-mcp-server"], "enabled": false}}}`+"\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "opencode config")
	e.newReal(repo, "o", "opencode", "say hi")
	e.expect(repo, "o", "working", "")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "o")

	// Nothing in the worktree: the server is in OPENCODE_CONFIG_CONTENT.
	_, env := e.agentProcess("--prompt")
	content := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_CONFIG_CONTENT="); ok {
			content = v
		}
	}
	require.Contains(t, content, `"owt"`)
	e.gitClean(wt)

	list := e.toolRun(wt, []string{"OPENCODE_CONFIG_CONTENT=" + content}, "", "opencode", "mcp", "list")
	require.Regexp(t, `✓ owt\s+connected`, list)
	require.Contains(t, list, "mine")
}
