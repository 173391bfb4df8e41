package git

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CombineConflict is a CombineCommits that stopped: merging commit Index
// (of the list it was given) into the merge of the commits before it
// conflicted in Files.
type CombineConflict struct {
	Index int
	Files []string
}

func (e *CombineConflict) Error() string {
	return fmt.Sprintf("conflict in %s", strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *CombineConflict) Is(target error) bool { return target == ErrConflict }

// CombineCommits merges two or more commits as an octopus merge would, but
// only in the object database: each is merged in turn with git merge-tree
// --write-tree, and the result is committed with git commit-tree, its
// parents the commits in order. No checkout, index or ref is touched; the
// commit is unreachable until a ref points at it. A conflict stops it with
// a *CombineConflict, having made nothing anyone can see.
func (r Repo) CombineCommits(commits []string, message string) (string, error) {
	if len(commits) < 2 {
		return "", errors.New("combine commits: need two or more")
	}
	acc := commits[0]
	for i := 1; i < len(commits); i++ {
		m, err := r.MergeTree(acc, commits[i])
		if err != nil {
			return "", err
		}
		if !m.Clean() {
			return "", &CombineConflict{Index: i, Files: m.Conflicts}
		}
		// Each step's commit is what the next step merges into; only the
		// last, with every commit as a parent, is returned.
		if acc, err = r.CommitTree(m.Tree, commits[:i+1], message); err != nil {
			return "", err
		}
	}
	return acc, nil
}

// Independent returns the commits none of the others contains (git
// merge-base --independent), in the order given: a commit another one
// already holds adds nothing to a merge.
func (r Repo) Independent(commits []string) ([]string, error) {
	if len(commits) < 2 {
		return commits, nil
	}
	out, err := r.run(append([]string{"merge-base", "--independent", "--end-of-options"}, commits...)...)
	if err != nil {
		return nil, fmt.Errorf("git merge-base --independent: %w", err)
	}
	keep := map[string]bool{}
	for _, c := range strings.Fields(string(out)) {
		keep[c] = true
	}
	var ind []string
	for _, c := range commits {
		if keep[c] {
			ind = append(ind, c)
			delete(keep, c) // a commit given twice is kept once
		}
	}
	return ind, nil
}

// ResolveCommits is ResolveCommit of several refs in one git process
// (Objects of each ref's ^{commit}); a ref that names no commit is an
// error.
func (r Repo) ResolveCommits(refs []string) ([]string, error) {
	revs := make([]string, len(refs))
	for i, ref := range refs {
		revs[i] = ref + "^{commit}"
	}
	shas, err := Objects(r.Root, revs)
	if err != nil {
		return nil, err
	}
	for i, sha := range shas {
		if sha == "" {
			return nil, fmt.Errorf("git rev-parse %s: no such commit", refs[i])
		}
	}
	return shas, nil
}

// DiffStatBetween is `git diff --stat` of the commits from..to, at most
// width columns wide and naming at most files files (git sums up the
// rest), for people to read.
func (r Repo) DiffStatBetween(from, to string, width, files int) (string, error) {
	out, err := r.run("diff", "--stat="+strconv.Itoa(max(width, 20)), "--stat-count="+strconv.Itoa(max(files, 1)),
		"--no-ext-diff", "--no-color", "--end-of-options", from, to, "--")
	if err != nil {
		return "", fmt.Errorf("git diff --stat %.12s %.12s: %w", from, to, err)
	}
	return strings.TrimRight(string(out), "\n"), nil
}
