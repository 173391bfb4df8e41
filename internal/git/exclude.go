package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/owt-tmux/owt/internal/atomicfile"
)

// owtExcludeHeader introduces the lines owt adds to info/exclude, so a user
// reading the file knows where they came from.
const owtExcludeHeader = "# owt"

// excludeLockWait bounds how long an owt process waits for another one to
// finish editing info/exclude (each edit takes well under a millisecond).
const excludeLockWait = 10 * time.Second

// withExcludeLock runs fn holding an flock on info/exclude.owt-lock, next to
// the file: every owt process that reads, changes and writes info/exclude
// (owt new adding its patterns, a rollback or owt note --clear removing
// theirs) does it under this lock, so none overwrites another's change.
// git itself never writes info/exclude, and reads it without a lock, which
// is fine: the file is only ever appended to or replaced by a rename.
func withExcludeLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	lock := flock.New(path + ".owt-lock")
	ctx, cancel := context.WithTimeout(context.Background(), excludeLockWait)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil || !ok {
		if err == nil {
			err = errors.New("another owt process holds it")
		}
		return fmt.Errorf("lock %s: %w", lock.Path(), err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// AddExcludes appends to info/exclude the patterns it does not already hold,
// under a "# owt" comment written once, and returns the patterns it added
// (the ones a rollback may remove again). Existing content is kept byte for
// byte; calling it again with the same patterns changes nothing.
func (r Repo) AddExcludes(patterns ...string) ([]string, error) {
	for _, p := range patterns {
		if strings.ContainsAny(p, "\r\n") {
			return nil, fmt.Errorf("exclude pattern %q: contains a line break", p)
		}
	}
	path, err := r.ExcludeFile()
	if err != nil {
		return nil, err
	}
	var added []string
	err = withExcludeLock(path, func() error {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		have := map[string]bool{}
		for _, line := range strings.Split(string(old), "\n") {
			have[strings.TrimSuffix(line, "\r")] = true
		}
		var add bytes.Buffer
		for _, p := range patterns {
			if p == "" || have[p] {
				continue
			}
			if add.Len() == 0 {
				if len(old) > 0 && old[len(old)-1] != '\n' {
					add.WriteByte('\n')
				}
				if !have[owtExcludeHeader] {
					add.WriteString(owtExcludeHeader + "\n")
				}
			}
			add.WriteString(p + "\n")
			have[p] = true
			added = append(added, p)
		}
		if add.Len() == 0 {
			return nil
		}
		// One O_APPEND write: never rewrite what the user has in the file.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("open %s: %w", path, err)
		}
		if _, err := f.Write(add.Bytes()); err != nil {
			f.Close()
			return fmt.Errorf("append to %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("append to %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return added, nil
}

// RemoveExcludes deletes from info/exclude the lines equal to one of
// patterns, keeping every other byte of the file as it was, lines added
// meanwhile by other owt processes included. The "# owt" header goes too
// once no line follows it. A missing file is no error.
func (r Repo) RemoveExcludes(patterns ...string) error {
	if len(patterns) == 0 {
		return nil
	}
	path, err := r.ExcludeFile()
	if err != nil {
		return err
	}
	return withExcludeLock(path, func() error { return removeExcludeLines(path, patterns) })
}

// UndoExcludes is RemoveExcludes for the rollback of a worktree being
// created at self: it removes the patterns only while no other linked
// worktree exists. Another worktree may have been created meanwhile and be
// relying on the same line (its own hook settings file, say) without
// having added it; leaving a line behind costs nothing, removing one a
// live worktree needs would let git commit owt's files there. The check
// and the removal happen under the lock, and owt adds patterns only after
// its worktree exists, so a worktree this check misses re-adds its lines
// after the removal.
func (r Repo) UndoExcludes(self string, patterns ...string) error {
	if len(patterns) == 0 {
		return nil
	}
	path, err := r.ExcludeFile()
	if err != nil {
		return err
	}
	return withExcludeLock(path, func() error {
		wts, err := r.Worktrees()
		if err != nil {
			return err
		}
		me, _ := realPath(self)
		for i, wt := range wts {
			if i == 0 || wt.Bare || wt.Path == self || wt.Path == me {
				continue // the main checkout, or the worktree rolled back
			}
			if wt.Prunable {
				continue
			}
			return nil // another worktree may need the lines
		}
		return removeExcludeLines(path, patterns)
	})
}

// removeExcludeLines rewrites path without the lines equal to patterns;
// the caller holds the lock.
func removeExcludeLines(path string, patterns []string) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	drop := map[string]bool{}
	for _, p := range patterns {
		if p != "" {
			drop[p] = true
		}
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(old), "\n") {
		if l == "" || drop[strings.TrimRight(l, "\r\n")] {
			continue
		}
		kept = append(kept, l)
	}
	// A header with nothing of owt's left under it goes as well.
	if n := len(kept); n > 0 && strings.TrimRight(kept[n-1], "\r\n") == owtExcludeHeader {
		kept = kept[:n-1]
	}
	out := strings.Join(kept, "")
	if out == string(old) {
		return nil
	}
	return atomicfile.Replace(path, []byte(out), 0o644)
}
