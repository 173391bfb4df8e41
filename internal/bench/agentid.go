package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/state"
)

// benchStores are the state stores under stateDir (…/owt): read by the
// state package itself, so the bench reads them as owt lays them out.
func benchStores(stateDir string) []*state.Store {
	files, _ := filepath.Glob(filepath.Join(stateDir, "repos", "*.json"))
	var out []*state.Store
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var head struct {
			Repo string `json:"repo"`
		}
		if json.Unmarshal(data, &head) == nil && head.Repo != "" {
			out = append(out, &state.Store{Repo: head.Repo, Path: f})
		}
	}
	return out
}

// agentIDEnv is the OWT_AGENT_ID=… of the agent called name, as the
// state files under stateDir (…/owt) record it: a hook the bench runs as
// that agent's own must carry it, or owt takes it for another tool run
// in the agent's folder and ignores it. Empty (OWT_AGENT_ID=) when no
// record has one.
func agentIDEnv(stateDir, name string) string {
	for _, s := range benchStores(stateDir) {
		f, err := s.Peek()
		if err == nil && f.Records[name] != nil && f.Records[name].AgentID != "" {
			return "OWT_AGENT_ID=" + f.Records[name].AgentID
		}
	}
	return "OWT_AGENT_ID="
}

// padRecords fills the repository state holding the agent called name
// up to total records, with copies of its record under other names (no
// worktree, no session of their own): what a hook reads and writes
// beside its own record in a repository of that many agents.
func padRecords(stateDir, name string, total int) {
	for _, s := range benchStores(stateDir) {
		check(s.Update(func(f *state.File) error {
			rec := f.Records[name]
			if rec == nil {
				return state.ErrNoChange
			}
			data, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			for i := 0; len(f.Records) < total; i++ {
				pad := &state.Record{}
				if err := json.Unmarshal(data, pad); err != nil {
					return err
				}
				pad.Name = fmt.Sprintf("pad-%04d", i)
				pad.Session, pad.SessionID, pad.Pane, pad.AgentID = "pad", "", "", ""
				pad.Path = filepath.Join(filepath.Dir(rec.Path), pad.Name)
				f.Records[pad.Name] = pad
			}
			return nil
		}))
	}
}
