package state

import (
	"path/filepath"
	"strings"
)

// MCPConfigPath is the file that registers owt mcp with the agent name of
// the repository at repoRoot, for tools that read MCP servers from a file
// named on their command line (Claude Code's --mcp-config): in owt's state
// dir, never in the worktree.
func MCPConfigPath(repoRoot, name string) string {
	repo := strings.TrimSuffix(filepath.Base(ForRepo(repoRoot).Path), ".json")
	// A swarm worker's name (HOST/role) becomes HOST@role: '@' is in no
	// worktree name, so no worker's file is another worktree's.
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = sanitize(p)
	}
	return filepath.Join(Dir(), "mcp", repo, strings.Join(parts, "@")+".json")
}
