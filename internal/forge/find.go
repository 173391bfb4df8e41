package forge

import (
	"errors"
	"strings"
)

// noPRText is what gh pr view says (exit 1) for a branch without a pull
// request: `no pull requests found for branch "NAME"`.
const noPRText = "no pull requests found for branch"

// Find reads the pull request of branch (gh pr view, one call, run in
// dir); found is false when gh says the branch has none. gh prefers an
// open pull request to closed and merged ones. Every other failure (not
// logged in, not installed, no GitHub remote) is an error.
func (c Client) Find(dir, branch string) (pr PR, found bool, err error) {
	pr, err = c.View(dir, branch)
	switch {
	case err == nil:
		return pr, true, nil
	case !errors.Is(err, ErrAuth) && !errors.Is(err, ErrNotInstalled) && strings.Contains(err.Error(), noPRText):
		return PR{}, false, nil
	}
	return PR{}, false, err
}
