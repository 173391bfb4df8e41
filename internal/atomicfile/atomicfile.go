// Package atomicfile is the one way owt replaces a file: a temp file
// beside it, fsync, rename, so a reader sees the old file or the new one,
// never a part, and a crash leaves one of the two. Write is for owt's own
// files (records, runs, outboxes, caches), Replace for a user's (hook
// settings, notes, info/exclude, a plan). It imports nothing of owt's.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Write replaces owt's own file at path (a record, a run, an outbox, a
// cache) with data. It is always mode 0600, whatever the old file's mode
// was. Callers that change the file from several processes hold their
// lock around it.
func Write(path string, data []byte) error {
	return WriteMode(path, data, 0o600)
}

// WriteUnsynced is Write without the fsync: still atomic (a reader, or
// a process killed mid-way, sees the old file or the new one), but a
// power loss may take the new file back to the old. For writes of what
// owt can tell again from tmux and the agents' screens (an agent's
// status, many times a minute), where the fsync was a third of a hook's
// time.
func WriteUnsynced(path string, data []byte) error {
	return replaceWith(path, data, 0o600, false)
}

// WriteMode is Write with the file's mode given: for a file owt made in
// a user's worktree (an injected note), which keeps the mode it has and
// whose symlink, if one now stands there, is replaced, not followed out
// of the worktree.
func WriteMode(path string, data []byte, mode os.FileMode) error {
	return replace(path, data, mode)
}

// Replace is Write for a user's file (hook settings, a note, a plan,
// info/exclude): a symlink at path is followed (a dotfiles link stays a
// link), an existing file keeps its mode (a new one gets newMode), and a
// path that is not a regular file (a device, a pipe, a directory) is
// refused rather than replaced.
func Replace(path string, data []byte, newMode os.FileMode) error {
	mode := newMode
	if target, err := filepath.EvalSymlinks(path); err == nil {
		fi, err := os.Stat(target)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file; owt does not replace it", path)
		}
		path, mode = target, fi.Mode().Perm()
	}
	return replace(path, data, mode)
}

// SetAside renames a corrupt file to path.corrupt-TIME (to the
// nanosecond, so two in one second keep both) for the user to read, and
// returns the new name.
func SetAside(path string) (string, error) {
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	return aside, os.Rename(path, aside)
}

func replace(path string, data []byte, mode os.FileMode) error {
	return replaceWith(path, data, mode, true)
}

func replaceWith(path string, data []byte, mode os.FileMode, sync bool) error {
	// Hidden, and named for owt: in a user's folder (a worktree's note,
	// hook settings) it is no file of theirs, even left by a crash.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".owt-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			_ = tmp.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// rename(2) itself: os.Rename first looks at path to refuse a
	// directory there, which rename(2) refuses too (EISDIR), and a hook
	// writes here on every status change.
	if err := rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, &os.LinkError{Op: "rename", Old: tmp.Name(), New: path, Err: err})
	}
	renamed = true
	return nil
}

// rename is rename(2), again when a signal interrupted it (on FUSE or
// NFS), as os.Rename does.
func rename(from, to string) error {
	for {
		if err := syscall.Rename(from, to); err != syscall.EINTR {
			return err
		}
	}
}
