package main

// A run started in the persona's read-only mode refuses to change files
// the way the real tool does: Claude Code's plan permission mode, Codex's
// read-only sandbox, Gemini CLI's plan approval mode, OpenCode's plan
// agent. A refused !write or !commit changes
// nothing, fires no tool hook and is logged as "refused".

// readOnly reports whether the run was started in the persona's
// read-only mode.
func readOnly(p *persona, o *options) bool {
	switch p.name {
	case "claude", "demo":
		return o.last("permission-mode") == "plan"
	case "codex":
		return o.last("sandbox") == "read-only"
	case "gemini":
		return o.last("approval-mode") == "plan"
	case "opencode":
		return o.last("agent") == "plan"
	}
	return false
}

// refuseInReadOnly refuses a change (what: "write PATH", "commit") in
// read-only mode, and says so; it reports whether it refused.
func (a *app) refuseInReadOnly(gen int, what string) bool {
	if a.opts == nil || !readOnly(a.p, a.opts) {
		return false
	}
	a.log.event("refused", "what", what, "mode", "read-only")
	a.say(gen, "  ⎿  Error: "+what+" refused: read-only mode (plan) does not allow changes")
	return true
}
