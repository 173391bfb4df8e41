package main

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// agentIDEnv is the OWT_AGENT_ID=… of the agent called name, as the
// state files under stateDir (…/owt) record it: a hook the bench runs as
// that agent's own must carry it, or owt takes it for another tool run
// in the agent's folder and ignores it. Empty (OWT_AGENT_ID=) when no
// record has one.
func agentIDEnv(stateDir, name string) string {
	files, _ := filepath.Glob(filepath.Join(stateDir, "repos", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var st struct {
			Worktrees map[string]struct {
				AgentID string `json:"agent_id"`
			} `json:"worktrees"`
		}
		if json.Unmarshal(data, &st) == nil && st.Worktrees[name].AgentID != "" {
			return "OWT_AGENT_ID=" + st.Worktrees[name].AgentID
		}
	}
	return "OWT_AGENT_ID="
}
