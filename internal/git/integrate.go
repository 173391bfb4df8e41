package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// editorEnv keeps merge and rebase from ever opening an editor: owt runs
// them for the user, often from a popup with no terminal to edit in.
var editorEnv = []string{"GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_MERGE_AUTOEDIT=no"}

// FastForward moves the branch checked out in dir to commit, updating its
// index and files (git merge --ff-only). It fails, changing nothing, when
// commit does not descend from HEAD or when a local change or untracked
// file would be overwritten. reason names the move in the reflog.
func FastForward(dir, commit, reason string) error {
	env := append([]string{"GIT_REFLOG_ACTION=" + reason}, editorEnv...)
	if _, err := runWith(dir, env, nil, "merge", "--ff-only", "--quiet", "--no-stat", commit); err != nil {
		return fmt.Errorf("git merge --ff-only %s in %s: %w", commit, dir, err)
	}
	return nil
}

// MergeInto merges ref into the branch checked out in dir (git merge),
// with a merge commit holding message when it is not a fast-forward.
// favor ("", "ours", "theirs") is passed as -X. On conflict it returns a
// *ConflictError; unless leave is set the merge is aborted first, so the
// worktree is as it was.
func MergeInto(dir, ref, message, favor string, leave bool) error {
	args := []string{"merge", "--no-edit", "--quiet", "--no-stat", "-m", message}
	if favor != "" {
		args = append(args, "-X", favor)
	}
	_, err := runWith(dir, editorEnv, nil, append(args, ref)...)
	if err == nil {
		return nil
	}
	conflicts, cerr := UnmergedFiles(dir)
	if cerr != nil || len(conflicts) == 0 {
		if op, _ := OperationInProgress(dir); op == "merge" && !leave {
			_, _ = run(dir, "merge", "--abort")
		}
		return fmt.Errorf("git merge %s in %s: %w", ref, dir, err)
	}
	if !leave {
		if _, aerr := run(dir, "merge", "--abort"); aerr != nil {
			return errors.Join(&ConflictError{Files: conflicts}, fmt.Errorf("git merge --abort in %s: %w", dir, aerr))
		}
	}
	return &ConflictError{Files: conflicts}
}

// Rebase replays the commits of the branch checked out in dir onto onto
// (git rebase). favor is passed as -X (in a rebase "ours" is onto's side).
// On conflict it returns a *ConflictError; unless leave is set the rebase
// is aborted first, which puts the branch and the worktree back.
func Rebase(dir, onto, favor string, leave bool) error {
	args := []string{"rebase", "--quiet", "--no-autostash"}
	if favor != "" {
		args = append(args, "-X", favor)
	}
	_, err := runWith(dir, editorEnv, nil, append(args, onto)...)
	if err == nil {
		return nil
	}
	conflicts, _ := UnmergedFiles(dir)
	op, _ := OperationInProgress(dir)
	if op == "rebase" && (!leave || len(conflicts) == 0) {
		if _, aerr := run(dir, "rebase", "--abort"); aerr != nil {
			return fmt.Errorf("git rebase %s in %s: %w (and git rebase --abort: %v)", onto, dir, err, aerr)
		}
	}
	if len(conflicts) > 0 {
		return &ConflictError{Files: conflicts}
	}
	return fmt.Errorf("git rebase %s in %s: %w", onto, dir, err)
}

// UnmergedFiles lists the conflicted paths of the worktree at dir.
func UnmergedFiles(dir string) ([]string, error) {
	out, err := run(dir, "diff", "--name-only", "-z", "--diff-filter=U")
	if err != nil {
		return nil, fmt.Errorf("git diff --diff-filter=U in %s: %w", dir, err)
	}
	files := splitNUL(out)
	slices.Sort(files)
	return slices.Compact(files), nil
}

// pathspecStdin is the NUL-separated list git reads with
// --pathspec-from-file=- --pathspec-file-nul; with --literal-pathspecs no
// file name is ever read as pathspec magic.
func pathspecStdin(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// CommitPaths stages exactly paths in the worktree at dir (new, changed
// and deleted files alike) and commits the index with message. It returns
// the new commit.
func CommitPaths(dir string, paths []string, message string) (string, error) {
	if len(paths) == 0 {
		return "", errors.New("nothing to commit")
	}
	if _, err := runWith(dir, nil, pathspecStdin(paths), "--literal-pathspecs", "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return "", fmt.Errorf("git add in %s: %w", dir, err)
	}
	msg, err := os.CreateTemp("", "owt-commit-msg-")
	if err != nil {
		return "", err
	}
	defer os.Remove(msg.Name())
	_, werr := msg.WriteString(message)
	if cerr := msg.Close(); werr != nil || cerr != nil {
		return "", fmt.Errorf("write commit message: %w", errors.Join(werr, cerr))
	}
	if _, err := runWith(dir, editorEnv, nil, "commit", "--quiet", "--cleanup=whitespace", "-F", msg.Name()); err != nil {
		return "", fmt.Errorf("git commit in %s: %w", dir, err)
	}
	return runLine(dir, "rev-parse", "HEAD")
}

// Snapshot returns a commit, child of HEAD, holding the worktree at dir as
// it would be if paths were committed now. It uses a throwaway index: the
// worktree's index, files and refs are not touched, and the commit is
// reachable from nothing. owt uses it to predict what shipping uncommitted
// work would do.
func Snapshot(dir string, paths []string) (string, error) {
	head, err := runLine(dir, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD in %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return head, nil
	}
	r := Repo{Root: dir}
	tree, err := r.withTempIndex(func(env []string) (string, error) {
		if _, err := runWith(dir, env, nil, "read-tree", head); err != nil {
			return "", fmt.Errorf("git read-tree HEAD in %s: %w", dir, err)
		}
		if _, err := runWith(dir, env, pathspecStdin(paths), "--literal-pathspecs", "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return "", fmt.Errorf("git add (snapshot) in %s: %w", dir, err)
		}
		out, err := runWith(dir, env, nil, "write-tree")
		if err != nil {
			return "", fmt.Errorf("git write-tree in %s: %w", dir, err)
		}
		return strings.TrimSpace(string(out)), nil
	})
	if err != nil {
		return "", err
	}
	return r.CommitTree(tree, []string{head}, "owt snapshot of uncommitted work")
}

// MergeBase returns the best common ancestor of a and b.
func (r Repo) MergeBase(a, b string) (string, error) {
	out, err := r.runLine("merge-base", "--end-of-options", a, b)
	if err != nil {
		return "", fmt.Errorf("git merge-base %s %s: %w", a, b, err)
	}
	return out, nil
}

// ChangedFiles lists the files b changes since it forked from a (the
// three-dot diff a...b), sorted. Renames count as a delete and an add.
func (r Repo) ChangedFiles(a, b string) ([]string, error) {
	out, err := r.run("diff", "--name-only", "-z", "--no-renames", "--end-of-options", a+"..."+b, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s...%s: %w", a, b, err)
	}
	files := splitNUL(out)
	slices.Sort(files)
	return files, nil
}

// DiffNames lists the files whose content differs between the commits
// from and to (the two-dot diff), sorted. Renames count as a delete and
// an add.
func (r Repo) DiffNames(from, to string) ([]string, error) {
	out, err := r.run("diff", "--name-only", "-z", "--no-renames", "--end-of-options", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s %s: %w", from, to, err)
	}
	files := splitNUL(out)
	slices.Sort(files)
	return files, nil
}

// Subjects returns the subject lines of the commits in from..to, oldest
// first.
func (r Repo) Subjects(from, to string) ([]string, error) {
	out, err := r.run("log", "--reverse", "--format=%s", "--end-of-options", from+".."+to, "--")
	if err != nil {
		return nil, fmt.Errorf("git log %s..%s: %w", from, to, err)
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// Tracked returns which of names (paths relative to the worktree at dir)
// git tracks there.
func Tracked(dir string, names ...string) (map[string]bool, error) {
	set := map[string]bool{}
	if len(names) == 0 {
		return set, nil // no pathspec would mean every file
	}
	out, err := run(dir, append([]string{"--literal-pathspecs", "ls-files", "-z", "--"}, names...)...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	for _, f := range splitNUL(out) {
		set[f] = true
	}
	return set, nil
}
