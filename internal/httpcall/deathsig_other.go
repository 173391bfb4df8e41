//go:build !linux

package httpcall

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal
// (macOS): a stream's owt-mcp ends at its next write to the dead pipe.
func dieWithParent(cmd *exec.Cmd) {}
