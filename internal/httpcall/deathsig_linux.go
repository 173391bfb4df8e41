package httpcall

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel end cmd when the process that started it
// ends, however it ends (kill -9 included): a stream's owt-mcp would
// otherwise live on until its next write to the dead pipe fails (a ntfy
// keepalive, ~45 s).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
