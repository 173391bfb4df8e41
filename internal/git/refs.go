package git

import "strings"

// Branches returns the set of local branch names, in one git call; callers
// that test many candidate names (owt new picking "-2", "-3") use it
// instead of one process per name.
func (r Repo) Branches() (map[string]bool, error) {
	out, err := run(r.Root, "for-each-ref", "--format=%(refname)", "refs/heads/")
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
