package setup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultCopyPatterns are the copy patterns used when config sets none.
var DefaultCopyPatterns = []string{".env", ".env.*", ".envrc"}

// MatchCopy says which untracked files of the main checkout go into the new
// worktree. untracked are paths relative to the repo root (slash-separated)
// of files git does not track.
//
// A pattern without '/' matches the base name at any depth (like
// .gitignore); with '/' it matches the whole relative path (path.Match).
// A leading '/' only anchors the pattern to the root ("/.env" matches the
// top-level .env alone). '*' never crosses a '/', and there is no '**'.
// Patterns come from config (DefaultCopyPatterns when unset).
//
// The result keeps the order of untracked, each path once. An empty or
// malformed pattern is an error naming it, as is an untracked path that
// is absolute or climbs out of the root.
func MatchCopy(untracked []string, patterns []string) ([]string, error) {
	type pat struct {
		glob     string
		fullPath bool
	}
	pats := make([]pat, 0, len(patterns))
	for _, p := range patterns {
		glob := strings.TrimPrefix(p, "/")
		if strings.TrimSpace(glob) == "" {
			return nil, fmt.Errorf("copy pattern %q is empty", p)
		}
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("copy pattern %q: %w", p, err)
		}
		pats = append(pats, pat{glob: glob, fullPath: strings.Contains(p, "/")})
	}

	var out []string
	seen := make(map[string]bool)
	for _, u := range untracked {
		rel, err := CleanRel(u)
		if err != nil {
			return nil, err
		}
		if seen[rel] {
			continue
		}
		for _, p := range pats {
			name := path.Base(rel)
			if p.fullPath {
				name = rel
			}
			// The pattern was validated above, so Match cannot fail here.
			if ok, _ := path.Match(p.glob, name); ok {
				seen[rel] = true
				out = append(out, rel)
				break
			}
		}
	}
	return out, nil
}

// CopyFiles copies each rel path (slash-separated) from srcRoot to dstRoot,
// creating parent directories (0755) and keeping the file's permission bits
// (a 0600 .env stays 0600). A symlink is copied as a symlink with the same
// target; a directory is an error (it is never followed into).
//
// It refuses to overwrite anything that already exists at the destination,
// returning an error naming the path: a tracked file in the worktree must
// never be clobbered. It never writes outside dstRoot, not even through a
// symlinked directory in the worktree. A source that has vanished since it
// was listed is skipped.
//
// All paths are checked before anything is written, so bad input (a path
// escaping the root, an existing destination, a directory) changes nothing.
// Returns the rel paths copied, in order; on a failure while copying, the
// ones copied before it.
func CopyFiles(srcRoot, dstRoot string, rels []string) ([]string, error) {
	rels, err := cleanRels(rels)
	if err != nil {
		return nil, err
	}
	src, err := os.OpenRoot(srcRoot)
	if err != nil {
		return nil, err
	}
	defer func() { _ = src.Close() }()
	dst, err := os.OpenRoot(dstRoot)
	if err != nil {
		return nil, err
	}
	defer func() { _ = dst.Close() }()

	var todo []string
	for _, rel := range rels {
		name := filepath.FromSlash(rel)
		fi, err := src.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", rel, err)
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("copy %s: is a directory (only files are copied; link directories instead)", rel)
		}
		if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			return nil, fmt.Errorf("copy %s: not a regular file or symlink", rel)
		}
		if err := checkFree(dst, rel); err != nil {
			return nil, fmt.Errorf("copy %w", err)
		}
		todo = append(todo, rel)
	}

	var copied []string
	for _, rel := range todo {
		if err := copyOne(src, dst, rel); err != nil {
			return copied, fmt.Errorf("copy %s: %w", rel, err)
		}
		copied = append(copied, rel)
	}
	return copied, nil
}

func copyOne(src, dst *os.Root, rel string) error {
	name := filepath.FromSlash(rel)
	if err := mkParents(dst, rel); err != nil {
		return err
	}
	fi, err := src.Lstat(name)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := src.Readlink(name)
		if err != nil {
			return err
		}
		return dst.Symlink(target, name)
	}

	in, err := src.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	ifi, err := in.Stat()
	if err != nil {
		return err
	}
	if !ifi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	perm := ifi.Mode().Perm()
	// O_EXCL: never clobber, even if something appeared since the check.
	out, err := dst.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(perm) // the umask may have narrowed it
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dst.Remove(name) // ours: created with O_EXCL above
		return err
	}
	return nil
}

// LinkPaths symlinks each rel path (file or directory, slash-separated) in
// dstRoot to the same path in srcRoot, made absolute. Missing sources are
// skipped and returned in skipped. Parent directories are created (0755).
//
// An existing destination is an error naming it, as is a path that is
// absolute or climbs out of the root ("../x"). All paths are checked before
// any link is made, so bad input changes nothing; on a failure while
// linking, linked holds the links made before it.
func LinkPaths(srcRoot, dstRoot string, rels []string) (linked, skipped []string, err error) {
	rels, err = cleanRels(rels)
	if err != nil {
		return nil, nil, err
	}
	srcAbs, err := filepath.Abs(srcRoot)
	if err != nil {
		return nil, nil, err
	}
	dst, err := os.OpenRoot(dstRoot)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = dst.Close() }()

	var todo []string
	for _, rel := range rels {
		if _, err := os.Stat(filepath.Join(srcAbs, filepath.FromSlash(rel))); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				skipped = append(skipped, rel)
				continue
			}
			return nil, nil, fmt.Errorf("link %s: %w", rel, err)
		}
		if err := checkFree(dst, rel); err != nil {
			return nil, nil, fmt.Errorf("link %w", err)
		}
		todo = append(todo, rel)
	}

	for _, rel := range todo {
		name := filepath.FromSlash(rel)
		if err := mkParents(dst, rel); err != nil {
			return linked, skipped, fmt.Errorf("link %s: %w", rel, err)
		}
		if err := dst.Symlink(filepath.Join(srcAbs, name), name); err != nil {
			return linked, skipped, fmt.Errorf("link %s: %w", rel, err)
		}
		linked = append(linked, rel)
	}
	return linked, skipped, nil
}

// checkFree returns an error naming rel unless nothing exists at rel in dst.
// A parent that is a file, or a symlink leading out of dst, is an error too.
func checkFree(dst *os.Root, rel string) error {
	_, err := dst.Lstat(filepath.FromSlash(rel))
	switch {
	case err == nil:
		return fmt.Errorf("%s: %w in the new worktree; refusing to overwrite it", rel, fs.ErrExist)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("%s: %w", rel, err)
	}
}

func mkParents(dst *os.Root, rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	return dst.MkdirAll(filepath.FromSlash(dir), 0o755)
}

// cleanRels validates every path (see CleanRel) and drops duplicates,
// keeping the first.
func cleanRels(rels []string) ([]string, error) {
	out := make([]string, 0, len(rels))
	seen := make(map[string]bool, len(rels))
	for _, r := range rels {
		c, err := CleanRel(r)
		if err != nil {
			return nil, err
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// CleanRel checks that rel is a slash-separated path inside the root: not
// empty, not absolute, no ".." element, not the root itself. It returns the
// path cleaned ("a//b/" → "a/b").
func CleanRel(rel string) (string, error) {
	switch {
	case rel == "":
		return "", errors.New("empty path")
	case strings.ContainsRune(rel, 0):
		return "", fmt.Errorf("path %q contains a NUL byte", rel)
	case path.IsAbs(rel) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return "", fmt.Errorf("path %q is absolute; want a path relative to the repository root", rel)
	}
	for _, el := range strings.Split(rel, "/") {
		if el == ".." {
			return "", fmt.Errorf("path %q leaves the repository root", rel)
		}
	}
	c := path.Clean(rel)
	if c == "." {
		return "", fmt.Errorf("path %q names the repository root itself", rel)
	}
	return c, nil
}
