package git

import (
	"fmt"
	"strconv"
	"strings"
)

// CountNotIn counts the commits reachable from rev and from none of not
// (git rev-list --count rev --not …), the revisions read on stdin so none
// is ever taken for an option.
func (r Repo) CountNotIn(rev string, not []string) (int, error) {
	var in strings.Builder
	for i, c := range append([]string{rev}, not...) {
		if c == "" || strings.ContainsAny(c, "\n\r") {
			return 0, fmt.Errorf("rev-list %q: not a revision", c)
		}
		if i > 0 {
			in.WriteString("^")
		}
		in.WriteString(c + "\n")
	}
	out, err := r.runWith(nil, []byte(in.String()), "rev-list", "--count", "--stdin")
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count %s: %w", rev, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count %s: unexpected output %q", rev, out)
	}
	return n, nil
}
