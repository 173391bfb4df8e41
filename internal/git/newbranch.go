package git

import "fmt"

// CreateBranchAt makes branch point at commit. git refuses when the branch
// exists already, so a branch someone else made in the meantime is never
// moved.
func (r Repo) CreateBranchAt(branch, commit string) error {
	if !plausibleBranchName(branch) {
		return fmt.Errorf("create branch %q: invalid name", branch)
	}
	if _, err := r.run("update-ref", "-m", "owt run: into branch", "refs/heads/"+branch, commit, ""); err != nil {
		return fmt.Errorf("create branch %s at %.12s: %w", branch, commit, err)
	}
	return nil
}

// SwitchNew makes branch at start and checks it out in the checkout at
// dir (git switch -c): the checkout must be clean, and git refuses when
// the branch exists already. Nothing is stashed or reset.
func SwitchNew(dir, branch, start string) error {
	if !plausibleBranchName(branch) {
		return fmt.Errorf("create branch %q: invalid name", branch)
	}
	if _, err := run(dir, "switch", "--no-guess", "-c", branch, start); err != nil {
		return fmt.Errorf("git switch -c %s in %s: %w", branch, dir, err)
	}
	return nil
}

// Switch checks out the existing branch in the checkout at dir (git
// switch); git refuses rather than overwrite local changes.
func Switch(dir, branch string) error {
	if !plausibleBranchName(branch) {
		return fmt.Errorf("switch to branch %q: invalid name", branch)
	}
	if _, err := run(dir, "switch", "--no-guess", branch); err != nil {
		return fmt.Errorf("git switch %s in %s: %w", branch, dir, err)
	}
	return nil
}
