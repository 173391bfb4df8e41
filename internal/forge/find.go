package forge

import "strings"

// noPRText is what gh pr view says (exit 1) for a branch without a pull
// request: `no pull requests found for branch "NAME"`.
const noPRText = "no pull requests found for branch"

// Find reads the pull request of branch (gh pr view, one call, run in
// dir); found is false when gh says the branch has none. gh prefers an
// open pull request to closed and merged ones. Every other failure (not
// logged in, not installed, no GitHub remote) is an error.
//
// gh takes a branch that looks like a number ("7", "#7") for that pull
// request's number: a pull request whose head is another branch is not
// this branch's.
func (c Client) Find(dir, branch string) (pr PR, found bool, err error) {
	pr, err = c.view(dir, branch)
	switch {
	case err == nil && pr.HeadRefName != branch:
		return PR{}, false, nil
	case err == nil:
		return pr, true, nil
	case strings.Contains(err.Error(), noPRText):
		return PR{}, false, nil
	}
	return PR{}, false, err
}
