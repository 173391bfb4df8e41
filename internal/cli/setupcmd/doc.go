// Package setupcmd holds the commands of owt's setup: its life in tmux and
// the shell (tmux init and its keys, the status line, the popups and
// diff's review screen, the monitor, shell completion, uninstall), and its
// configuration (config show and validate, tools and codex's hooks,
// templates, notify test).
package setupcmd
