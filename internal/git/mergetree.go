package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrConflict marks (with errors.Is) a merge or rebase that stopped on
// conflicting changes; the *ConflictError carries the files.
var ErrConflict = errors.New("conflict")

// ConflictError lists the files two sides both changed in ways git cannot
// combine.
type ConflictError struct {
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("conflict in %s", strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// ConflictEntry is one stage of a conflicted path, as merge-tree reports it.
type ConflictEntry struct {
	Mode  string
	OID   string
	Stage int // 1 base, 2 ours, 3 theirs
	Path  string
}

// MergeTreeResult is the outcome of merging two commits without any
// working tree or index.
type MergeTreeResult struct {
	Tree      string          // the merged tree; with conflicts, it holds conflict markers
	Conflicts []string        // conflicted paths, sorted, each once
	Entries   []ConflictEntry // the stages behind Conflicts
}

// Clean reports whether the merge had no conflicts.
func (m MergeTreeResult) Clean() bool { return len(m.Conflicts) == 0 }

// MergeTree merges ours and theirs (any commit-ish) the way `git merge`
// would, but only in the object database: no checkout, index or ref is
// touched (git merge-tree --write-tree, git ≥ 2.38). Objects it writes are
// unreachable until a commit refers to them.
func (r Repo) MergeTree(ours, theirs string) (MergeTreeResult, error) {
	out, err := r.run("merge-tree", "--write-tree", "-z", "--no-messages", "--end-of-options", ours, theirs)
	code := exitCode(err)
	if err != nil && code != 1 {
		return MergeTreeResult{}, fmt.Errorf("git merge-tree %s %s: %w", ours, theirs, err)
	}
	res, perr := parseMergeTree(out)
	if perr != nil {
		return MergeTreeResult{}, fmt.Errorf("git merge-tree %s %s: %w", ours, theirs, perr)
	}
	if code == 1 && res.Clean() {
		return MergeTreeResult{}, fmt.Errorf("git merge-tree %s %s: reported a conflict but listed no file", ours, theirs)
	}
	return res, nil
}

// parseMergeTree reads `git merge-tree --write-tree -z --no-messages`: the
// tree id, then one "<mode> <oid> <stage>\t<path>" record per conflicted
// stage, all NUL-terminated.
func parseMergeTree(out []byte) (MergeTreeResult, error) {
	fields := splitNUL(out)
	if len(fields) == 0 || len(fields[0]) < 40 {
		return MergeTreeResult{}, fmt.Errorf("unexpected output %q", out)
	}
	res := MergeTreeResult{Tree: fields[0]}
	for _, f := range fields[1:] {
		if f == "" {
			break // messages would follow; --no-messages has none
		}
		head, path, ok := strings.Cut(f, "\t")
		parts := strings.Fields(head)
		if !ok || len(parts) != 3 || len(parts[2]) != 1 {
			return MergeTreeResult{}, fmt.Errorf("unexpected conflict record %q", f)
		}
		res.Entries = append(res.Entries, ConflictEntry{Mode: parts[0], OID: parts[1], Stage: int(parts[2][0] - '0'), Path: path})
		res.Conflicts = append(res.Conflicts, path)
	}
	slices.Sort(res.Conflicts)
	res.Conflicts = slices.Compact(res.Conflicts)
	return res, nil
}

// Favor resolves the content conflicts of a merge-tree result in favour of
// one side, like `git merge -X ours|theirs`: hunks that conflict take that
// side, the rest of each file is merged as usual. side is "ours" or
// "theirs". Conflicts that are not about content (modify/delete, renames)
// cannot be settled this way and are returned as unresolved. The returned
// tree is written to the object database; nothing else changes.
func (r Repo) Favor(m MergeTreeResult, side string) (tree string, unresolved []string, err error) {
	if side != "ours" && side != "theirs" {
		return "", nil, fmt.Errorf("favor %q: want ours or theirs", side)
	}
	if m.Clean() {
		return m.Tree, nil, nil
	}
	stages := map[string]map[int]ConflictEntry{}
	for _, e := range m.Entries {
		if stages[e.Path] == nil {
			stages[e.Path] = map[int]ConflictEntry{}
		}
		stages[e.Path][e.Stage] = e
	}
	var info bytes.Buffer
	for _, path := range m.Conflicts {
		st := stages[path]
		ours, okO := st[2]
		theirs, okT := st[3]
		if !okO || !okT {
			unresolved = append(unresolved, path)
			continue
		}
		pick := ours
		if side == "theirs" {
			pick = theirs
		}
		oid := pick.OID
		if isRegularFile(ours.Mode) && isRegularFile(theirs.Mode) {
			if merged, ok, err := r.mergeFile(st[1], ours, theirs, side); err != nil {
				return "", nil, fmt.Errorf("resolve %s: %w", path, err)
			} else if ok {
				oid = merged
			}
		}
		fmt.Fprintf(&info, "%s %s\t%s\x00", pick.Mode, oid, path)
	}
	if len(unresolved) > 0 {
		return "", unresolved, nil
	}
	tree, err = r.replaceInTree(m.Tree, info.Bytes())
	return tree, nil, err
}

func isRegularFile(mode string) bool { return mode == "100644" || mode == "100755" }

// mergeFile merges three blobs with `git merge-file --ours|--theirs` and
// writes the result as a blob. ok is false for binary content, which the
// caller then takes whole from the favoured side (as git merge -X does).
func (r Repo) mergeFile(base, ours, theirs ConflictEntry, side string) (oid string, ok bool, err error) {
	dir, err := os.MkdirTemp("", "owt-merge-file-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(dir)
	names := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	for i, e := range []ConflictEntry{ours, base, theirs} {
		var data []byte
		if e.OID != "" { // a missing base (add/add) is an empty file
			if data, err = r.run("cat-file", "blob", e.OID); err != nil {
				return "", false, fmt.Errorf("git cat-file %s: %w", e.OID, err)
			}
		}
		if err := os.WriteFile(names[i], data, 0o600); err != nil {
			return "", false, err
		}
	}
	out, err := r.run("merge-file", "-p", "--"+side, "-L", "ours", "-L", "base", "-L", "theirs", names[0], names[1], names[2])
	if err != nil {
		return "", false, nil // binary or otherwise unmergeable: take the side whole
	}
	oid, err = r.writeBlob(out)
	return oid, err == nil, err
}

func (r Repo) writeBlob(data []byte) (string, error) {
	out, err := r.runWith(nil, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("git hash-object: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// replaceInTree returns tree with the entries of indexInfo (the -z format
// of `git update-index --index-info`) put in, using a throwaway index file
// so neither the user's index nor any worktree is involved.
func (r Repo) replaceInTree(tree string, indexInfo []byte) (string, error) {
	return r.withTempIndex(func(env []string) (string, error) {
		if _, err := r.runWith(env, nil, "read-tree", tree); err != nil {
			return "", fmt.Errorf("git read-tree %s: %w", tree, err)
		}
		if _, err := r.runWith(env, indexInfo, "update-index", "-z", "--index-info"); err != nil {
			return "", fmt.Errorf("git update-index: %w", err)
		}
		out, err := r.runWith(env, nil, "write-tree")
		if err != nil {
			return "", fmt.Errorf("git write-tree: %w", err)
		}
		return strings.TrimSpace(string(out)), nil
	})
}

// withTempIndex runs fn with GIT_INDEX_FILE pointing at a fresh temporary
// index, removed afterwards.
func (r Repo) withTempIndex(fn func(env []string) (string, error)) (string, error) {
	dir, err := os.MkdirTemp("", "owt-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	return fn([]string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")})
}

// CommitTree makes a commit of tree with the given parents and message,
// without moving any ref (git commit-tree). The author and committer are
// the user's configured identity.
func (r Repo) CommitTree(tree string, parents []string, message string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := r.runWith(nil, []byte(message), append(args, "-F", "-")...)
	if err != nil {
		return "", fmt.Errorf("git commit-tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// TreeOf returns the tree id of a commit.
func (r Repo) TreeOf(commit string) (string, error) {
	return r.ResolveObject(commit + "^{tree}")
}

// ResolveObject returns the full id of any revision expression.
func (r Repo) ResolveObject(rev string) (string, error) {
	sha, err := r.runLine("rev-parse", "--verify", "--quiet", "--end-of-options", rev)
	if err != nil || sha == "" {
		return "", fmt.Errorf("git rev-parse %s: no such object", rev)
	}
	return sha, nil
}

// UpdateBranch moves refs/heads/branch from old to new in one atomic step:
// git refuses when the branch no longer points at old, so a change made by
// someone else in the meantime is never overwritten. It only ever moves a
// branch forward: new must descend from old, so no commit the branch holds
// can be dropped. reason goes to the reflog.
func (r Repo) UpdateBranch(branch, newCommit, old, reason string) error {
	if !plausibleBranchName(branch) {
		return fmt.Errorf("update branch %q: invalid name", branch)
	}
	if !r.IsAncestor(old, newCommit) {
		return fmt.Errorf("update branch %s to %.12s: it does not contain %.12s, the commit %s is at; refusing to drop commits from %s",
			branch, newCommit, old, branch, branch)
	}
	if _, err := r.run("update-ref", "-m", reason, "refs/heads/"+branch, newCommit, old); err != nil {
		return fmt.Errorf("git update-ref refs/heads/%s: %w", branch, err)
	}
	return nil
}
