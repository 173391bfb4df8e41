//go:build !linux

package tmux

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal
// (macOS): the watch's stop, and the server's end, end cmd there.
func dieWithParent(cmd *exec.Cmd) {}
