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
