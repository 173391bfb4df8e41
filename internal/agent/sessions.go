package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
)

// sessionListTimeout bounds `opencode session list` (≈3 s for a bun
// binary's start).
const sessionListTimeout = 20 * time.Second

// LatestSession is the id of the tool's newest session started in dir,
// for a tool whose hooks name none but that lists its sessions: OpenCode
// 1.18.33 keeps them in SQLite, and `opencode session list --format json`
// run in dir prints its project's as [{id, title, updated, created,
// projectId, directory}] (nothing at all when there are none). "" with no
// error when the tool lists none here, or lists no sessions at all.
func (p Profile) LatestSession(dir string, since time.Time) (string, error) {
	if p.MCP != MCPOpenCode || len(p.Command) == 0 {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionListTimeout)
	defer cancel()
	argv := append(clone(p.Command), "session", "list", "--format", "json")
	cmd := proc.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out := &capped{max: MaxHeadlessAnswer}
	cmd.Stdout = out
	if err := proc.Run(ctx, cmd); err != nil {
		return "", fmt.Errorf("%s session list: %w", p.Name, err)
	}
	return newestSessionIn(out.Bytes(), dir, since)
}

// newestSessionIn reads `opencode session list --format json`: the id of
// the most recently updated session whose directory is dir, made since
// since (a minute's slack): an earlier agent's of the same folder is not it.
func newestSessionIn(data []byte, dir string, since time.Time) (string, error) {
	if len(data) == 0 {
		return "", nil
	}
	var list []struct {
		ID        string `json:"id"`
		Updated   int64  `json:"updated"`
		Created   int64  `json:"created"`
		Directory string `json:"directory"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return "", fmt.Errorf("read the session list: %w", err)
	}
	dirs := map[string]bool{filepath.Clean(dir): true}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dirs[real] = true
	}
	best, at := "", int64(-1)
	for _, s := range list {
		if s.ID != "" && dirs[filepath.Clean(s.Directory)] && s.Updated > at && s.Created >= since.Add(-time.Minute).UnixMilli() {
			best, at = s.ID, s.Updated
		}
	}
	return best, nil
}
