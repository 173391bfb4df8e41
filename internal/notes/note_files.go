package notes

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// Where each tool reads instructions it does not share with the team.
// owt writes a note only into a file it creates itself, under a name that
// is local by convention (no project commits it), at the top of the
// worktree, and lists it in info/exclude. A file of that name that owt
// did not create is left alone, and so is every file a project may mean
// to commit (AGENTS.md, GEMINI.md): excluding one of those would hide the
// user's own file from git in every checkout of the repository.
//
//   - Claude Code reads CLAUDE.local.md next to CLAUDE.md: the personal,
//     untracked file made for this.
//   - Codex reads, in each directory from the git root down, the first of
//     AGENTS.override.md and AGENTS.md. With no AGENTS.md, owt writes
//     AGENTS.override.md. With an AGENTS.md (tracked or not: an untracked
//     one is the user's or the agent's work) it skips Codex, since an
//     override would hide that file from it; and when an AGENTS.md appears
//     after owt wrote its override, the next note (or owt note again)
//     takes owt's override away so Codex reads the AGENTS.md.
//   - Gemini CLI reads GEMINI.md (or the names in context.fileName), a
//     project file: skipped.
//   - OpenCode, Droid, Amp, Cursor's agent and Pi read AGENTS.md, a
//     project file: skipped.
//   - Aider reads no instructions file by itself (only --read files).
//
// Skipped agents get the note with --send.
type noteTarget struct {
	File    string // relative to the worktree, at its top
	Skipped string // why no file, when File is ""
	// Withdraw names a file owt may have written before that must no
	// longer hold the note (it would hide a file the agent reads).
	Withdraw string
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
		if _, err := os.Lstat(filepath.Join(r.Path, "AGENTS.md")); err == nil {
			return noteTarget{Withdraw: "AGENTS.override.md",
				Skipped: "codex: the worktree has an AGENTS.md, and an AGENTS.override.md would hide it from codex (use --send)"}
		}
		return untrackedTarget(r.Path, r.Tool, "AGENTS.override.md")
	case r.Tool == "gemini":
		return noteTarget{Skipped: "gemini reads GEMINI.md, which belongs to the project; owt does not write it (use --send)"}
	case agentsMDTools[r.Tool]:
		return noteTarget{Skipped: r.Tool + " reads AGENTS.md, which belongs to the project; owt does not write it (use --send)"}
	case r.Tool == "aider":
		return noteTarget{Skipped: "aider reads no instructions file by itself (use --send)"}
	default:
		return noteTarget{Skipped: "owt does not know where " + r.Tool + " reads instructions (use --send)"}
	}
}

// untrackedTarget is name, unless git tracks it in dir.
func untrackedTarget(dir, tool, name string) noteTarget {
	tracked, err := git.Tracked(dir, name)
	if err != nil {
		return noteTarget{Skipped: err.Error()}
	}
	if tracked[name] {
		return noteTarget{Skipped: tool + ": " + name + " is tracked; owt never writes into tracked files (use --send)"}
	}
	return noteTarget{File: name}
}

// noteFileNames are the files owt may write a note into.
var noteFileNames = []string{"CLAUDE.local.md", "AGENTS.override.md"}

// FileWork lists the note files of the worktree of r that hold
// something besides owt's note block — text the agent or the user added,
// or the whole file when owt did not write it — while git does not show
// them (owt's info/exclude line hides them). Removing the worktree would
// lose that text, so delete and teardown count these files as work. A
// file owt copied in that still matches the main checkout's is not work.
func FileWork(r *state.Record) ([]string, error) {
	var out []string
	for _, name := range noteFileNames {
		path := filepath.Join(r.Path, name)
		data, err := os.ReadFile(path)
		if err != nil {
			continue // absent (or unreadable: nothing owt could keep either)
		}
		rest, _ := withoutNoteBlock(string(data))
		if strings.TrimSpace(rest) == "" {
			continue
		}
		if slices.Contains(r.Copied, name) && sameFile(filepath.Join(r.Repo, name), path) {
			continue
		}
		ignored, err := git.IsIgnored(r.Path, name)
		if err != nil {
			return nil, err
		}
		if ignored {
			out = append(out, name)
		}
	}
	return out, nil
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

func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
