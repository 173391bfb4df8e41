package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// ErrNoReadOnly marks a tool with no read-only mode.
var ErrNoReadOnly = errors.New("tool has no read-only mode")

// ReadOnlyArgv is Argv in the tool's read-only mode: ReadOnly in place of
// Plan, and never the skip-permission arguments (Codex's bypass would
// lift its read-only sandbox).
func (p Profile) ReadOnlyArgv(task string) ([]string, error) {
	if p.ReadOnly == nil {
		return nil, &toolError{msg: fmt.Sprintf("tool %q has no read-only mode owt can enforce", p.Name), kind: ErrNoReadOnly}
	}
	ro := p
	ro.Plan = p.ReadOnly
	return ro.Argv(task, true, false)
}

// ReportsEdits reports whether the tool's hooks name the files it writes
// (EditedFile): Claude Code, Droid and Gemini CLI do; Codex's hooks do not
// name the files of its patches, and the others have no hooks owt reads.
func (p Profile) ReportsEdits() bool {
	return p.Hooks == "claude" || p.Hooks == "droid" || p.Hooks == "gemini"
}

// editTools are the tools whose tool_input.file_path names a file they
// write (Claude Code and Droid, Gemini CLI): a Read has a file_path too.
var editTools = map[string]bool{
	"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true, "Create": true, "ApplyPatch": true,
	"write_file": true, "replace": true,
}

// EditedFile is the file a tool-use hook event says the agent writes,
// absolute (relative paths are taken from the event's cwd); "" when the
// event is no file edit.
func EditedFile(ev HookEvent) string {
	if !editTools[ev.ToolName] || len(ev.ToolInput) == 0 {
		return ""
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(ev.ToolInput, &in) != nil || in.FilePath == "" {
		return ""
	}
	path := in.FilePath
	if !filepath.IsAbs(path) && ev.Cwd != "" {
		path = filepath.Join(ev.Cwd, path)
	}
	return filepath.Clean(path)
}
