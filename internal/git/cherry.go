package git

import (
	"fmt"
	"strings"
)

// HoldsPatches reports whether into's history since its fork point with
// tip has, for every non-merge commit of tip since that point, a commit
// with the same patch-id: tip's work was rebased or cherry-picked into
// it. It is false when tip has no such commit at all (nothing to match).
func (r Repo) HoldsPatches(into, tip string) (bool, error) {
	out, err := r.run("rev-list", "--no-merges", "--cherry-mark", "--right-only", "--end-of-options", into+"..."+tip)
	if err != nil {
		return false, fmt.Errorf("git rev-list --cherry-mark %s...%s: %w", into, tip, err)
	}
	lines := strings.Fields(string(out))
	for _, l := range lines {
		if !strings.HasPrefix(l, "=") {
			return false, nil
		}
	}
	return len(lines) > 0, nil
}
