package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Install merges the tool's hooks into its settings file in a new
// worktree, so the agent reports its status to "owt hook" (by absolute
// path), and owt mcp as one of its MCP servers where the tool reads them
// from that file (Gemini). The user's settings and hooks in that file are kept; owt's own
// hooks from an earlier run are replaced, not duplicated. Codex has no
// file: its notify program goes on its command line (see runAgent).
//
// Keeping the file out of git:
//   - Not tracked on the branch (the usual case: .claude/settings.local.json
//     is a personal file): its path goes
//     into the repository's info/exclude, before the file is written, so it
//     never shows as a change. That pattern covers every worktree of the
//     repository, the main checkout included.
//   - Tracked on the branch (a team's committed .gemini/settings.json): an
//     exclude pattern would not hide it, and would hide the file wherever
//     it is not yet tracked. owt merges its hooks into the file and marks it
//     skip-worktree in this worktree's index only, so git status, git add -A
//     and the agent's commits leave owt's lines out, and the main checkout
//     is untouched. skip-worktree hides the agent's own edits of the file
//     as well, so the file is noted on the record (HookFiles): WorkFiles
//     counts it as work when, without owt's hooks, it differs from HEAD,
//     and owt ship commits it without owt's hooks (git.CommitPathsWith).
//
// push takes what undoes the info/exclude change if creation fails later; the file
// itself goes with the worktree. In the user's own checkout (an in-place
// agent) the file's former content is kept on the record, and push also
// takes what puts it back.
func (w *Files) Install(rec *state.Record, prof agent.Profile, push func(undo func())) error {
	spec, ok := agent.HookFiles[prof.Hooks]
	if !ok {
		return nil
	}
	// Gemini reads MCP servers from the same file: owt mcp goes in with
	// the hooks (see agent/mcp.go).
	mcp := prof.MCPRegistration(w.Config.MCP) == agent.MCPGemini
	path := filepath.Join(rec.Path, filepath.FromSlash(spec.Path))
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.noHooks(spec.Path, mcp, err)
		return nil
	}
	// A file owt cannot merge into (JSON with comments, which Gemini
	// allows; a shape owt does not know) is the user's and stays as it is:
	// the agent still starts, its status read from the screen.
	data, err := agent.MergeHookSettings(old, prof.Hooks, w.Self)
	if err == nil && mcp {
		data, err = agent.MergeMCPSettings(data, agent.OwtMCP(w.Self, rec.Name, rec.Repo, ""))
	}
	if err != nil {
		w.noHooks(spec.Path, mcp, err)
		return nil
	}
	tracked := false
	if existed {
		if tracked, err = git.IsTracked(rec.Path, spec.Path); err != nil {
			return err
		}
	}
	excluded := false
	if !tracked {
		w.warnHidden(spec.Path)
		added, err := w.ExcludeWithUndo(push, rec.Path, "/"+spec.Path)
		if err != nil {
			return fmt.Errorf("exclude %s from git: %w", spec.Path, err)
		}
		excluded = len(added) > 0
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	hf := state.HookFile{Path: spec.Path, Tracked: tracked, Excluded: excluded}
	if rec.InPlace {
		// The user's own checkout: what was there goes back when the
		// agent does (RestoreInPlace), or when this create fails.
		hf.Existed, hf.Prior = existed, old
		if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
			hf.MadeDir = true
		}
		push(func() {
			if err := restoreHookFile(rec.Path, hf); err != nil {
				w.Logf("roll back: %v", err)
			}
		})
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if tracked {
		if err := git.SkipWorktree(rec.Path, spec.Path); err != nil {
			return err
		}
	}
	return w.recordHookFile(rec, hf)
}

// noHooks says, in one line, that owt left the settings file rel alone
// and why: the agent has no hooks, the monitor reads its screen instead
// (and, when mcp, its tool does not get owt mcp).
func (w *Files) noHooks(rel string, mcp bool, why error) {
	msg := fmt.Sprintf("%s could not be read (%v); status for this agent comes from the screen", rel, why)
	if mcp {
		msg += ", and it has no owt mcp (its peers)"
	}
	out := w.Warn
	if out == nil {
		out = w.Log
	}
	fmt.Fprintf(out, "owt: %s\n", msg)
	owtlog.Errorf("new", owtlog.Fields{Repo: w.Repo.Root, Event: "hooks"}, "%s", msg)
}

// recordHookFile notes on the record (in memory and in the state file) a
// settings file owt merged its hooks into. For a tracked one WorkFiles
// needs it: skip-worktree hides the agent's own edits of the file from
// git status, so owt compares the file, without its hooks, with HEAD.
func (w *Files) recordHookFile(rec *state.Record, hf state.HookFile) error {
	rec.HookFiles = append(rec.HookFiles, hf)
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[rec.Name]
		if !ok {
			return fmt.Errorf("record %s vanished while it was being created", rec.Name)
		}
		r.HookFiles = rec.HookFiles
		return nil
	})
	if err != nil {
		return fmt.Errorf("record hook file %s: %w", hf.Path, err)
	}
	return nil
}

// warnHidden says so when the exclude pattern for rel will also hide an
// untracked file of that name in the main checkout, which the user may
// have meant to commit one day.
func (w *Files) warnHidden(rel string) {
	if _, err := os.Stat(filepath.Join(w.Repo.Root, filepath.FromSlash(rel))); err != nil {
		return
	}
	if tracked, err := git.IsTracked(w.Repo.Root, rel); err != nil || tracked {
		return
	}
	if ignored, _ := git.IsIgnored(w.Repo.Root, rel); ignored {
		return
	}
	w.Logf("note: %s is now in .git/info/exclude so owt's hooks stay out of commits; the untracked %s of your checkout is hidden from git status too ('git add -f %s' if you mean to commit it)", rel, rel, rel)
}

// ExcludeWithUndo adds patterns to the repository's info/exclude for the
// worktree being created at worktree, and pushes the action that
// removes again exactly the lines it added — never a snapshot put back,
// which would drop lines other owt processes appended meanwhile — unless
// another worktree exists by then that may rely on them.
func (w *Files) ExcludeWithUndo(push func(undo func()), worktree string, patterns ...string) ([]string, error) {
	added, err := w.Repo.AddExcludes(patterns...)
	if err != nil {
		return nil, err
	}
	if len(added) > 0 {
		push(func() {
			if err := w.Repo.UndoExcludes(worktree, added...); err != nil {
				w.Logf("roll back: %v", err)
			}
		})
	}
	return added, nil
}

// ReleaseExcludes removes the info/exclude lines owt added for r's hook
// files once r is gone and no other worktree of the repo may hold such a
// file (any record whose tool writes it, even one still being created):
// otherwise the line would go on hiding a file of that name that the user
// creates later in their own checkout.
func (w *Files) ReleaseExcludes(r *state.Record, others []*state.Record) {
	for _, h := range r.HookFiles {
		if !h.Excluded {
			continue
		}
		needed := false
		for _, o := range others {
			if spec, ok := agent.HookFiles[w.Tools[o.Tool].Hooks]; ok && spec.Path == h.Path && !o.NoAgent {
				needed = true
			}
		}
		if needed {
			w.handOverExclude(h.Path, others)
			continue
		}
		if err := w.Repo.RemoveExcludes("/" + h.Path); err != nil {
			w.Logf("%v", err)
		}
	}
}

// handOverExclude passes the duty to remove owt's exclude line for rel to
// another worktree that uses the file, so the last one to go removes it.
func (w *Files) handOverExclude(rel string, others []*state.Record) {
	err := w.Store.Update(func(f *state.File) error {
		for _, o := range others {
			r, ok := f.Records[o.Name]
			if !ok {
				continue
			}
			for i := range r.HookFiles {
				if r.HookFiles[i].Path == rel && !r.HookFiles[i].Tracked {
					r.HookFiles[i].Excluded = true
					return nil
				}
			}
		}
		return nil
	})
	if err != nil {
		w.Logf("%v", err)
	}
}

// Files is a workspace seen by the files owt writes into its worktrees.
type Files struct{ *workspace.Workspace }

// Of is the hook files of the worktrees of w, a complete workspace.
func Of(w *workspace.Workspace) *Files { return &Files{w} }

// Renew writes owt's hooks again into the settings file of rec's
// worktree when they are not the commands this owt writes (an older owt
// wrote them, naming its owt-hook program, or owt has moved): at each
// start of an agent after its first, and by owt doctor --fix. The user's
// settings and hooks stay; how the file is kept out of git does not
// change. It reports whether it wrote the file.
func (w *Files) Renew(rec *state.Record, prof agent.Profile) (bool, error) {
	if _, ok := agent.HookFiles[prof.Hooks]; !ok || rec.NoAgent || rec.Path == "" {
		return false, nil
	}
	path, old, stale := w.staleHooks(rec, prof)
	if !stale {
		return false, nil
	}
	data, err := agent.MergeHookSettings(old, prof.Hooks, w.Self)
	if err != nil {
		return false, fmt.Errorf("write owt's hooks again into %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return false, fmt.Errorf("write owt's hooks again into %s: %w", path, err)
	}
	return true, nil
}

// StaleHooks reports whether the settings file of rec's worktree holds
// owt hooks that are not the commands this owt writes, and names it.
func (w *Files) StaleHooks(rec *state.Record, prof agent.Profile) (string, bool) {
	if _, ok := agent.HookFiles[prof.Hooks]; !ok || rec.NoAgent || rec.Path == "" {
		return "", false
	}
	path, _, stale := w.staleHooks(rec, prof)
	return path, stale
}

func (w *Files) staleHooks(rec *state.Record, prof agent.Profile) (path string, data []byte, stale bool) {
	path = filepath.Join(rec.Path, filepath.FromSlash(agent.HookFiles[prof.Hooks].Path))
	data, err := os.ReadFile(path)
	if err != nil {
		return path, nil, false
	}
	return path, data, agent.StaleOwtHooks(data, prof.Hooks, w.Self)
}
