package agent

import (
	"encoding/json"
	"path/filepath"
)

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
