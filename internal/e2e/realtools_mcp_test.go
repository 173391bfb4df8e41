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
// settings in place. Each tool's first-run test checks it in the same
// world (TestRealClaudeFirstRun, TestRealCodexFirstRun with the helpers
// below; TestRealGeminiFirstRun, TestRealOpenCodeAt80x24).

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

// claudeMCPRegistration checks owt's MCP server as Claude agent name (in
// repo, at its trust screen) was given it: --mcp-config=FILE, FILE in
// owt's state folder, nothing in the worktree, and claude connects to it.
// It returns FILE.
func (e *Env) claudeMCPRegistration(repo, name string) string {
	t := e.t
	t.Helper()
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", name)
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
	require.Equal(t, name, cfg.MCPServers["owt"].Env["OWT_NAME"])
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
	return file
}

// codexMCPRegistration checks owt's MCP server as Codex agent name (in
// repo) was given it: a -c override naming the secret's variable, never
// the secret; nothing in the worktree; listed by codex mcp list; and
// connected to by a codex run.
func (e *Env) codexMCPRegistration(repo, name string) {
	t := e.t
	t.Helper()
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", name)
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
