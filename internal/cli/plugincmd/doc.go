// Package plugincmd holds the commands behind owt's life in tmux and the
// shell: tmux init and its keys, the status line, the popups and diff's
// review screen, the monitor, and shell completion.
package plugincmd
