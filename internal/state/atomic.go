package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic replaces the file at path with data: a temp file beside it,
// fsync, rename. A reader sees the old file or the new one, never a part,
// and a crash leaves one of the two. A new file is mode 0600; an existing
// one keeps its mode. A symlink at path is followed (a dotfiles link stays
// a link), and a path that is not a regular file (a device, a pipe, a
// directory) is refused rather than replaced. Callers that change the
// file from several processes hold their lock around it.
func WriteAtomic(path string, data []byte) error {
	mode := os.FileMode(0o600)
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
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
