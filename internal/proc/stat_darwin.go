package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// macOS has no /proc: the kernel's process table (sysctl kern.proc) gives
// the parent, the process group and the state, getsid(2) the session.
// Not tried on a Mac, only built (make cross).

// ReadStat reads the process pid's Stat from the kernel's process table.
func ReadStat(pid int) (Stat, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Stat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	if int(kp.Proc.P_pid) != pid {
		return Stat{}, fmt.Errorf("process %d: %w", pid, unix.ESRCH)
	}
	return kinfoStat(kp), nil
}

// Processes is every process's Stat; one that ends while the list is read
// is left out.
func Processes() []Stat {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]Stat, 0, len(kps))
	for i := range kps {
		if kps[i].Proc.P_pid > 0 {
			out = append(out, kinfoStat(&kps[i]))
		}
	}
	return out
}

// darwinState are the letters of Linux's stat for macOS's p_stat (SIDL,
// SRUN, SSLEEP, SSTOP, SZOMB).
var darwinState = map[int8]string{1: "I", 2: "R", 3: "S", 4: "T", 5: "Z"}

func kinfoStat(kp *unix.KinfoProc) Stat {
	pid := int(kp.Proc.P_pid)
	st := Stat{PID: pid, PPID: int(kp.Eproc.Ppid), PGRP: int(kp.Eproc.Pgid), State: darwinState[kp.Proc.P_stat]}
	if sid, err := unix.Getsid(pid); err == nil {
		st.Session = sid
	}
	return st
}
