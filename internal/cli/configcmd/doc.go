// Package configcmd holds the commands about owt's setup: config (show,
// validate) and tools (the agents owt knows, and codex's hooks).
package configcmd
