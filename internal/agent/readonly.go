package agent

import (
	"errors"
	"fmt"
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
