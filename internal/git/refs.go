package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Branches returns the set of local branch names, in one git call; callers
// that test many candidate names (owt new picking "-2", "-3") use it
// instead of one process per name.
func (r Repo) Branches() (map[string]bool, error) {
	out, err := r.run("for-each-ref", "--format=%(refname)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, ref := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			set[name] = true
		}
	}
	return set, nil
}

// BranchRef is the full ref name of the local branch name. owt passes
// branches to git in this form: a bare name is read as a tag, a remote or
// refs/<name> first when one of those exists, so "release" with a tag
// release would measure the tag, not the branch.
func BranchRef(name string) string { return "refs/heads/" + name }

// AmbiguousRefs lists the refs other than the branch that git would read
// in place of (or along with) the revision name: refs/<name>,
// refs/tags/<name>, refs/remotes/<name> and refs/remotes/<name>/HEAD.
// A new branch of that name would be misread by anyone's `git log name`.
func (r Repo) AmbiguousRefs(name string) ([]string, error) {
	want := []string{"refs/" + name, "refs/tags/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"}
	out, err := r.run(append([]string{"for-each-ref", "--format=%(refname)"}, want...)...)
	if err != nil {
		return nil, fmt.Errorf("git for-each-ref: %w", err)
	}
	var found []string
	for _, ref := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if slices.Contains(want, ref) {
			found = append(found, ref)
		}
	}
	return found, nil
}

// OnlyOn counts the commits of the local branch that neither base nor any
// other local branch holds: what deleting the branch would destroy. Work
// merged with --into elsewhere, or kept by another branch, is not counted.
func (r Repo) OnlyOn(branch, base string) (int, error) {
	ref := BranchRef(branch)
	args := []string{"rev-list", "--count", ref, "--not"}
	if base != "" {
		args = append(args, base)
	}
	// --glob matches full ref names, so the exclusion does too. The base
	// commits another machine's owt pushed here (refs/owt/base/…, kept)
	// hold theirs too: an agent started from one has not made them, and
	// deleting its branch leaves them there.
	args = append(args, "--exclude="+ref, "--glob=refs/heads/*", "--glob=refs/owt/base/*", "--")
	out, err := r.runLine(args...)
	// Another branch deleted while git read the list (a parallel owt
	// delete) reads as "bad object": the question still stands, so ask
	// again, a few times, while the branch itself is there.
	for try := 0; err != nil && try < 3 && vanishedRef(err) && r.BranchExists(branch); try++ {
		out, err = r.runLine(args...)
	}
	if err != nil {
		return 0, fmt.Errorf("git rev-list %s --not %s and other branches: %w", ref, base, err)
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("git rev-list %s: unexpected output %q", ref, out)
	}
	return n, nil
}

// vanishedRef reports whether git failed on a ref that went away while it
// read it.
func vanishedRef(err error) bool {
	var re *runError
	return errors.As(err, &re) && strings.Contains(re.stderr, "bad object")
}

// NamesInUse maps each name a new branch could not take to the ref that
// has it, in one git call: every local branch (refs/heads/<name>), and the
// names git would read as another ref (refs/<name>, refs/tags/<name>,
// refs/remotes/<name>, refs/remotes/<name>/HEAD; see AmbiguousRefs). A
// local branch wins when both exist.
func (r Repo) NamesInUse() (map[string]string, error) {
	out, err := r.run("for-each-ref", "--format=%(refname)")
	if err != nil {
		return nil, err
	}
	return namesInUse(strings.Split(strings.TrimSpace(string(out)), "\n")), nil
}

// namesInUse is NamesInUse of the refs listed.
func namesInUse(refs []string) map[string]string {
	names := map[string]string{}
	for _, ref := range refs {
		if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			names[name] = ref
		}
	}
	for _, ref := range refs {
		for _, name := range readAs(ref) {
			if _, ok := names[name]; !ok {
				names[name] = ref
			}
		}
	}
	return names
}

// readAs is the names git would resolve to ref when given them bare.
func readAs(ref string) []string {
	rest := strings.TrimPrefix(ref, "refs/")
	names := []string{rest}
	if t, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		names = append(names, t)
	}
	if rm, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
		names = append(names, rm)
		if h, ok := strings.CutSuffix(rm, "/HEAD"); ok {
			names = append(names, h)
		}
	}
	return names
}

// BranchTips maps every local branch to its commit: one git process
// for all of them.
func (r Repo) BranchTips() (map[string]string, error) {
	out, err := r.run("for-each-ref", "--format=%(refname)%00%(objectname)", "refs/heads/")
	if err != nil {
		return nil, fmt.Errorf("git for-each-ref: %w", err)
	}
	tips := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		ref, commit, ok := strings.Cut(line, "\x00")
		if name, isBranch := strings.CutPrefix(ref, "refs/heads/"); ok && isBranch {
			tips[name] = commit
		}
	}
	return tips, nil
}

// HeldByBranches reports whether commit (a full hash, as another
// machine's git named it) is in this repository and every commit it
// stands on is held by a local branch: a branch there at that commit
// loses nothing here when deleted. owt's own branches of fetched work
// (OwnFetchPrefix) do not count: they are scratch, deleted or
// overwritten by the next landing. (--branches takes its --exclude
// without refs/heads/.)
func (r Repo) HeldByBranches(commit string) bool {
	if !fullHash(commit) || !r.HasCommit(commit) {
		return false
	}
	out, err := r.runLine("rev-list", "--count", commit, "--not", "--exclude="+OwnFetchPrefix+"*", "--branches", "--")
	return err == nil && out == "0"
}

// fullHash reports whether s is a whole commit hash (SHA-1 or SHA-256),
// nothing git could read as an option or a revision expression.
func fullHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ReadBranchTips reads the branch tips of the repository whose common
// git dir is common from its files, without running git: the loose refs
// under refs/heads, over packed-refs. A ref it cannot read is left out
// (BranchTips asks git).
func ReadBranchTips(common string) (map[string]string, error) {
	tips := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(common, "packed-refs")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			id, ref, ok := strings.Cut(line, " ")
			if name, isBranch := strings.CutPrefix(ref, "refs/heads/"); ok && isBranch && len(id) >= 40 {
				tips[name] = id
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	heads := filepath.Join(common, "refs", "heads")
	err := filepath.WalkDir(heads, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil // gone meanwhile
		}
		id := strings.TrimSpace(string(data))
		rel, err := filepath.Rel(heads, p)
		if err == nil && len(id) >= 40 && !strings.HasPrefix(id, "ref:") && !strings.HasSuffix(p, ".lock") {
			tips[filepath.ToSlash(rel)] = id
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read refs/heads: %w", err)
	}
	return tips, nil
}
