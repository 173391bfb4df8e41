package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// AgentLockPath is the lock file that serializes typing into the agent
// called name of the repository at repoRoot. It lives in owt's state dir,
// never in the worktree, keyed by both so equal names in two repos do not
// wait for each other.
func AgentLockPath(repoRoot, name string) string {
	sum := sha256.Sum256([]byte(repoRoot + "\x00" + name))
	file := sanitize(name) + "-" + hex.EncodeToString(sum[:])[:12] + ".lock"
	return filepath.Join(Dir(), "agents", file)
}

// LockAgent waits for and takes the lock of the agent called name: text
// typed into one agent by two processes at once would merge into one
// prompt. The returned function releases it.
func LockAgent(repoRoot, name string) (unlock func(), err error) {
	path := AgentLockPath(repoRoot, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create lock dir: %w", err)
	}
	lock := flock.New(path)
	if err := lock.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s for sending: %w", name, err)
	}
	return func() { _ = lock.Unlock() }, nil
}
