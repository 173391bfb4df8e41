package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// Where each tool reads instructions it does not share with the team.
// owt writes a note only into a file git does not track, at the top of the
// worktree, and lists it in info/exclude:
//
//   - Claude Code reads CLAUDE.local.md next to CLAUDE.md: the personal,
//     untracked file made for this.
//   - Codex reads, in each directory from the git root down, the first of
//     AGENTS.override.md and AGENTS.md. With no AGENTS.md, owt writes
//     AGENTS.override.md (a name no project commits); with an untracked
//     AGENTS.md, into that. With a tracked AGENTS.md it skips Codex: an
//     override would hide the project's file from it.
//   - Gemini CLI reads the files named by context.fileName in
//     .gemini/settings.json (default GEMINI.md) from the workspace up to the
//     project root, all of them; owt uses the first name that is not tracked.
//   - OpenCode, Droid, Amp, Cursor's agent and Pi read AGENTS.md.
//   - Aider reads no instructions file by itself (only --read files).
type noteTarget struct {
	File    string // relative to the worktree, at its top
	Skipped string // why no file, when File is ""
}

// agentsMDTools read AGENTS.md at the project root.
var agentsMDTools = map[string]bool{"opencode": true, "droid": true, "amp": true, "cursor-agent": true, "pi": true}

// noteTargetFor picks the file the agent of r reads its local instructions from.
func noteTargetFor(r *state.Record) noteTarget {
	if r.NoAgent {
		return noteTarget{Skipped: "no agent runs there"}
	}
	switch {
	case r.Tool == "claude":
		return untrackedTarget(r.Path, r.Tool, "CLAUDE.local.md")
	case r.Tool == "codex":
		agents, err := git.Tracked(r.Path, "AGENTS.md")
		if err != nil {
			return noteTarget{Skipped: err.Error()}
		}
		if agents["AGENTS.md"] {
			return noteTarget{Skipped: "codex: AGENTS.md is tracked, and an AGENTS.override.md would hide it from codex (use --send)"}
		}
		if _, err := os.Lstat(filepath.Join(r.Path, "AGENTS.md")); err == nil {
			return untrackedTarget(r.Path, r.Tool, "AGENTS.md")
		}
		return untrackedTarget(r.Path, r.Tool, "AGENTS.override.md")
	case r.Tool == "gemini":
		return untrackedTarget(r.Path, r.Tool, geminiContextFiles(r.Path)...)
	case agentsMDTools[r.Tool]:
		return untrackedTarget(r.Path, r.Tool, "AGENTS.md")
	case r.Tool == "aider":
		return noteTarget{Skipped: "aider reads no instructions file by itself (use --send)"}
	default:
		return noteTarget{Skipped: "owt does not know where " + r.Tool + " reads instructions (use --send)"}
	}
}

// untrackedTarget is the first of names git does not track in dir.
func untrackedTarget(dir, tool string, names ...string) noteTarget {
	tracked, err := git.Tracked(dir, names...)
	if err != nil {
		return noteTarget{Skipped: err.Error()}
	}
	for _, n := range names {
		if !tracked[n] {
			return noteTarget{File: n}
		}
	}
	return noteTarget{Skipped: tool + ": " + names[0] + " is tracked; owt never writes into tracked files (use --send)"}
}

// geminiContextFiles are the context file names Gemini CLI reads: the
// project's .gemini/settings.json, else the user's, else GEMINI.md.
func geminiContextFiles(dir string) []string {
	home, _ := os.UserHomeDir()
	for _, p := range []string{filepath.Join(dir, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")} {
		if names := contextFileNames(p); len(names) > 0 {
			return names
		}
	}
	return []string{"GEMINI.md"}
}

// contextFileNames reads context.fileName (or the older contextFileName),
// a string or a list; names with a path are left out: owt writes at the
// top of the worktree only.
func contextFileNames(settings string) []string {
	data, err := os.ReadFile(settings)
	if err != nil {
		return nil
	}
	var s struct {
		Context struct {
			FileName json.RawMessage `json:"fileName"`
		} `json:"context"`
		Legacy json.RawMessage `json:"contextFileName"`
	}
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	raw := s.Context.FileName
	if len(raw) == 0 {
		raw = s.Legacy
	}
	var list []string
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		list = []string{one}
	} else if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, n := range list {
		if n != "" && filepath.Base(n) == n && n != "." && n != ".." {
			out = append(out, n)
		}
	}
	return out
}
