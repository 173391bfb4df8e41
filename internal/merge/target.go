package merge

import "github.com/owt-tmux/owt/internal/git"

// CheckTarget says whether owt merge could land on target as things are:
// nil when target is checked out nowhere, or in a clean checkout on it;
// a *TargetDirtyError when that checkout is dirty or mid-operation. owt
// run start warns with it before a run that lands there is registered.
func CheckTarget(g git.Repo, target string) error {
	_, err := (&Context{Git: g}).checkTargetCheckout(target)
	return err
}
