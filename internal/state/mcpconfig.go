package state

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// MCPConfigPath is the file that registers owt mcp with the agent name of
// the repository at repoRoot, for tools that read MCP servers from a file
// named on their command line (Claude Code's --mcp-config): in owt's state
// dir, never in the worktree.
func MCPConfigPath(repoRoot, name string) string {
	return mcpPath(repoRoot, name, ".json")
}

// MCPTokenPath is the file that holds the agent name's MCP secret (see
// NewMCPToken), beside its --mcp-config file.
func MCPTokenPath(repoRoot, name string) string {
	return mcpPath(repoRoot, name, ".token")
}

func mcpPath(repoRoot, name, ext string) string {
	repo := strings.TrimSuffix(filepath.Base(ForRepo(repoRoot).Path), ".json")
	// A swarm worker's name (HOST/role) becomes HOST@role: '@' is in no
	// worktree name, so no worker's file is another worktree's.
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = sanitize(p)
	}
	return filepath.Join(Dir(), "mcp", repo, strings.Join(parts, "@")+ext)
}

// MCPTokenEnv is the variable owt mcp reads its agent's secret from: set
// only in the environment the agent's tool gives owt mcp (its MCP
// registration), never in the tmux session every shell of it inherits.
const MCPTokenEnv = "OWT_MCP_TOKEN"

// NewMCPToken makes the agent name a new secret, kept in a file only the
// user can read, and returns it. The runner makes one each time it starts
// the agent's tool and hands it to that tool's registration of owt mcp,
// so a server another agent starts, whatever OWT_NAME it sets, cannot act
// as name without it. A new one replaces the last: the servers of the
// agent's earlier run act no more.
func NewMCPToken(repoRoot, name string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make %s's MCP secret: %w", name, err)
	}
	tok := hex.EncodeToString(b[:])
	file := MCPTokenPath(repoRoot, name)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	if err := atomicfile.Replace(file, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return tok, nil
}

// ErrMCPToken is a server whose secret is not its agent's.
var ErrMCPToken = errors.New("this server was not started by the agent's own tool")

// CheckMCPToken reports whether tok is the agent name's current secret.
func CheckMCPToken(repoRoot, name, tok string) error {
	if tok == "" {
		return fmt.Errorf("%w: it has no secret (%s); an agent acts only as itself, through the owt mcp its tool was given", ErrMCPToken, MCPTokenEnv)
	}
	data, err := os.ReadFile(MCPTokenPath(repoRoot, name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s has no secret (its tool was not started with owt mcp)", ErrMCPToken, name)
	}
	if err != nil {
		return fmt.Errorf("read %s's MCP secret: %w", name, err)
	}
	want := strings.TrimSpace(string(data))
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(tok)) != 1 {
		return fmt.Errorf("%w: its secret is not %s's (another agent's, or from %s's earlier run); an agent acts only as itself", ErrMCPToken, name, name)
	}
	return nil
}

// RemoveMCPFiles removes the agent name's registration file and secret,
// when it goes.
func RemoveMCPFiles(repoRoot, name string) {
	_ = os.Remove(MCPConfigPath(repoRoot, name))
	_ = os.Remove(MCPTokenPath(repoRoot, name))
}
