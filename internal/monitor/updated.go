package monitor

import (
	"fmt"
	"os"
)

// UpdatedError is what Run returns when the owt program it runs as was
// replaced (an update: make install, the install script, go install):
// the caller starts the new one in its place (syscall.Exec, same pid),
// so a monitor never runs old code beside a newer owt, which may have
// moved the state on (a newer schema an old monitor skips, leaving the
// status bar without its agents).
type UpdatedError struct{ Exe string }

func (e *UpdatedError) Error() string {
	return fmt.Sprintf("owt at %s was updated: the monitor starts again as the new owt", e.Exe)
}

// program is the file this process was started from, to notice its
// replacement: a new file at the path (another inode) or the same one
// rewritten (another modification time or size).
type program struct {
	path string
	info os.FileInfo
}

// thisProgram is this process's program; nil when it cannot be told.
func thisProgram() *program {
	path, err := os.Executable()
	if err != nil {
		return nil
	}
	// Linux names the file this process runs, even once another was
	// put at its path: an update between the exec and this look would
	// otherwise pass for the program itself, never to be noticed.
	// Elsewhere the path is all there is.
	info, err := os.Stat("/proc/self/exe")
	if err != nil {
		if info, err = os.Stat(path); err != nil {
			return nil
		}
	}
	return &program{path: path, info: info}
}

// replaced reports whether another program file is now at p's path, one
// that can be run. A path with no file (owt uninstalled, or halfway
// through a copy) is no replacement: the monitor goes on as it is.
func (p *program) replaced() bool {
	if p == nil {
		return false
	}
	now, err := os.Stat(p.path)
	if err != nil || !now.Mode().IsRegular() || now.Mode()&0o111 == 0 {
		return false
	}
	return !os.SameFile(p.info, now) || !now.ModTime().Equal(p.info.ModTime()) || now.Size() != p.info.Size()
}
