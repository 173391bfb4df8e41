package tmux

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the process that started it
// ends, however it ends (SIGKILL included).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
