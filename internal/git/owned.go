package git

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// UnreferencedCommits counts the commits reachable from the HEAD of the
// worktree at dir that no branch, tag or remote-tracking ref holds: work
// made on a detached HEAD, which removing the worktree would throw away
// (only the reflog, soon pruned, would still know it).
func UnreferencedCommits(dir string) (int, error) {
	out, err := runLine(dir, "rev-list", "--count", "HEAD", "--not", "--branches", "--tags", "--remotes")
	if err != nil {
		if _, herr := runLine(dir, "rev-parse", "--verify", "--quiet", "HEAD"); herr != nil {
			return 0, nil // an unborn HEAD holds no commit
		}
		return 0, fmt.Errorf("git rev-list HEAD --not --branches --tags --remotes in %s: %w", dir, notRepo(err))
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count in %s: unexpected output %q", dir, out)
	}
	return n, nil
}

// owtCreatedKey is the branch config variable that marks a branch owt
// created (branch.<name>.owt-created). git drops the whole branch.<name>
// section when it deletes the branch, and moves it when it renames it, so
// the mark lives exactly as long as the branch.
const owtCreatedKey = "owt-created"

// MarkOwtBranch records that owt created branch, so owt doctor may later
// report it (and delete it once merged) if it is left behind; branches
// owt did not create are the user's and are never touched. Another git
// process holding the config lock is waited for briefly.
func (r Repo) MarkOwtBranch(branch string) error {
	if !plausibleBranchName(branch) {
		return fmt.Errorf("mark branch %q: invalid name", branch)
	}
	key := "branch." + branch + "." + owtCreatedKey
	var err error
	for i := 0; i < 40; i++ {
		if _, err = r.run("config", "--bool", key, "true"); err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "lock") {
			break
		}
		time.Sleep(time.Duration(5+i) * time.Millisecond)
	}
	return fmt.Errorf("git config %s: %w", key, err)
}

// UnmarkOwtBranch removes owt's mark from a branch the user keeps (owt
// delete --keep-branch): from then on it is theirs, and owt doctor leaves
// it alone. A branch without the mark is fine.
func (r Repo) UnmarkOwtBranch(branch string) error {
	key := "branch." + branch + "." + owtCreatedKey
	_, err := r.run("config", "--unset", key)
	if err != nil && exitCode(err) != 5 { // 5: the key was not set
		return fmt.Errorf("git config --unset %s: %w", key, err)
	}
	return nil
}

// OwtBranches returns the branches carrying owt's created mark.
func (r Repo) OwtBranches() (map[string]bool, error) {
	set := map[string]bool{}
	out, err := r.run("config", "--null", "--get-regexp", `^branch\..*\.`+owtCreatedKey+`$`)
	if err != nil {
		if exitCode(err) == 1 { // no such variable
			return set, nil
		}
		return nil, fmt.Errorf("git config --get-regexp branch.*.%s: %w", owtCreatedKey, err)
	}
	// --null: "key\nvalue\0" per variable.
	for _, rec := range splitNUL(out) {
		key, val, _ := strings.Cut(rec, "\n")
		name, ok := strings.CutPrefix(key, "branch.")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "."+owtCreatedKey)
		if !ok || name == "" {
			continue
		}
		if b, err := strconv.ParseBool(strings.TrimSpace(val)); err == nil && b {
			set[name] = true
		}
	}
	return set, nil
}
