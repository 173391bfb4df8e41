package git

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// statusEntry is one record of `git status --porcelain=v1 -z`.
type statusEntry struct {
	XY   string // two status letters, "??" untracked, "!!" ignored
	Path string
	Orig string // source path of a rename or copy, else ""
}

// parseStatus reads `git status --porcelain=v1 -z`. In -z format paths are
// raw (no quoting) and a rename or copy is followed by a second field
// holding the source path.
func parseStatus(out []byte) ([]statusEntry, error) {
	fields := splitNUL(out)
	var list []statusEntry
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 || f[2] != ' ' {
			return nil, fmt.Errorf("unexpected status record %q", f)
		}
		e := statusEntry{XY: f[:2], Path: f[3:]}
		if strings.ContainsAny(e.XY, "RC") {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("status record %q lacks its source path", f)
			}
			i++
			e.Orig = fields[i]
		}
		list = append(list, e)
	}
	return list, nil
}

// DirtyFiles lists the paths in the worktree at dir that hold work not yet
// committed: modified, staged, deleted and untracked files. Ignored files are
// not dirty, so build output and .env files never block a merge or delete.
// For a rename both the new and the old path are listed, since both changed.
// Paths are relative to the worktree's top level, slash-separated.
func DirtyFiles(dir string) ([]string, error) {
	out, err := run(dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, notRepo(err))
	}
	entries, err := parseStatus(out)
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Path)
		if e.Orig != "" {
			files = append(files, e.Orig)
		}
	}
	return files, nil
}

// DiffStat summarizes a diff. Binary files count as files with no lines.
type DiffStat struct{ Files, Insertions, Deletions int }

// Diff measures what the worktree at dir has changed relative to where its
// branch left base: the working tree (committed and uncommitted changes to
// tracked files) against merge-base(base, HEAD). Diffing against the merge
// base rather than base itself keeps work that landed on base since the
// branch was made from showing up as this worktree's changes.
func Diff(dir, base string) (DiffStat, error) {
	// One process where git can (diff --merge-base, git 2.30); two where
	// it cannot (an older git, or several merge bases).
	mb := "merge-base(" + base + ", HEAD)"
	out, err := run(dir, "diff", "--numstat", "--no-ext-diff", "--no-color", "--merge-base", "--end-of-options", base, "--")
	if err != nil {
		if mb, err = runLine(dir, "merge-base", "--end-of-options", base, "HEAD"); err != nil {
			return DiffStat{}, fmt.Errorf("git merge-base %s HEAD in %s: %w", base, dir, err)
		}
		if out, err = run(dir, "diff", "--numstat", "--no-ext-diff", "--no-color", mb, "--"); err != nil {
			return DiffStat{}, fmt.Errorf("git diff %s in %s: %w", mb, dir, err)
		}
	}
	var st DiffStat
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			return DiffStat{}, fmt.Errorf("git diff %s in %s: unexpected line %q", mb, dir, line)
		}
		st.Files++
		if f[0] == "-" { // binary
			continue
		}
		ins, err1 := strconv.Atoi(f[0])
		del, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return DiffStat{}, fmt.Errorf("git diff %s in %s: unexpected line %q", mb, dir, line)
		}
		st.Insertions += ins
		st.Deletions += del
	}
	return st, nil
}

// ExcludeFile returns the absolute path of the repository's info/exclude.
// It lives in the common dir, so one file covers every worktree: that is why
// owt lists the files it writes into worktrees there and not in .gitignore.
func (r Repo) ExcludeFile() (string, error) {
	p, err := r.runLine("rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
	if err != nil {
		return "", fmt.Errorf("git rev-parse --git-path info/exclude: %w", err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Root, p)
	}
	return filepath.Clean(p), nil
}

// UnversionedFiles lists the files of the main checkout that git does not
// track: those it ignores (.env, build output) and the untracked ones it
// would offer to add, each sorted.
func (r Repo) UnversionedFiles() (Unversioned, error) {
	// --ignored=matching reports a directory matched by an ignore pattern as
	// "dir/" without descending into it, and otherwise lists ignored files
	// individually; -uall lists untracked files individually too.
	out, err := r.run("status", "--porcelain=v1", "-z", "--untracked-files=all",
		"--ignored=matching", "--ignore-submodules=all", "--no-renames")
	if err != nil {
		return Unversioned{}, fmt.Errorf("git status --ignored in %s: %w", r.Root, err)
	}
	entries, err := parseStatus(out)
	if err != nil {
		return Unversioned{}, fmt.Errorf("git status --ignored in %s: %w", r.Root, err)
	}
	var u Unversioned
	for _, e := range entries {
		if strings.HasSuffix(e.Path, "/") {
			continue
		}
		switch e.XY {
		case "!!":
			u.Ignored = append(u.Ignored, e.Path)
		case "??":
			u.Untracked = append(u.Untracked, e.Path)
		}
	}
	slices.Sort(u.Ignored)
	slices.Sort(u.Untracked)
	return u, nil
}

// Unversioned are a checkout's files git does not track.
type Unversioned struct {
	Ignored   []string // git ignores them
	Untracked []string // git would offer to add them
}
