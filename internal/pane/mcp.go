package pane

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/state"
)

// withMCP registers owt mcp with the agent about to start, the way its
// tool reads MCP servers (see agent/mcp.go): arguments added to argv, or
// the environment the tool starts with (nil: the runner's own). Gemini's
// registration is in its settings file, written when the worktree was
// made. Each start makes the agent a new secret (state.NewMCPToken) that
// only this registration and the tool's own environment hold (which its
// shell commands inherit, so an owt new of theirs is known as the
// agent's), never the session's.
// A registration that fails is said in the pane; the agent still starts,
// without its peers.
func (w *runner) withMCP(rec *state.Record, prof agent.Profile, argv []string, out io.Writer) ([]string, []string) {
	kind := prof.MCPRegistration(w.Config.MCP)
	if kind == "" {
		return argv, nil
	}
	fail := func(err error) ([]string, []string) {
		fmt.Fprintf(out, "owt: %s starts without owt mcp (its peers): %v\n", rec.Tool, err)
		return argv, nil
	}
	secret, err := state.NewMCPToken(rec.Repo, rec.Name)
	if err != nil {
		return fail(err)
	}
	srv := agent.OwtMCP(w.Self, rec.Name, rec.Repo, secret)
	// The tool's environment holds the secret (never the session's).
	env := append(proc.WithoutEnv(os.Environ(), state.MCPTokenEnv), agent.SecretEnv(srv))
	switch kind {
	case agent.MCPGemini:
		return argv, env
	case agent.MCPOpenCode:
		content, err := agent.OpenCodeMCPContent(os.Getenv(agent.OpenCodeConfigEnv), srv)
		if err != nil {
			return fail(err)
		}
		return argv, append(env, agent.OpenCodeConfigEnv+"="+content)
	case agent.MCPClaude:
		file := state.MCPConfigPath(rec.Repo, rec.Name)
		if err := writeMCPConfig(file, srv); err != nil {
			return fail(err)
		}
		args, err := agent.MCPArgs(kind, srv, file)
		if err != nil {
			return fail(err)
		}
		return prof.WithArgs(argv, args), env
	}
	args, err := agent.MCPArgs(kind, srv, "")
	if err != nil {
		return fail(err)
	}
	return prof.WithArgs(argv, args), env
}

// writeMCPConfig writes Claude's --mcp-config file for srv, readable by
// the user only (it names the agent's repository).
func writeMCPConfig(file string, srv agent.MCPServer) error {
	data, err := agent.ClaudeMCPConfig(srv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	if err := atomicfile.Replace(file, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}
