package workspace

import (
	"fmt"
	"strings"
)

// ListedMax is how many items of a list owt names in one line of output
// before it says how many more there are.
const ListedMax = 5

// Some names the first n items joined by ", " and then how many more
// there are ("a, b, c and 2995 more"), so no list owt prints grows with
// the number of files in a repository.
func Some(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
