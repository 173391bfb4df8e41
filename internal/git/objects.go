package git

import (
	"fmt"
	"strings"
)

// Objects resolves several revision expressions (HEAD, refs/heads/x^{tree},
// a sha) in one git process, in dir (HEAD is that worktree's). A revision
// that names nothing gives "" in its place, not an error: a branch that is
// gone is an answer, not a failure. git cat-file --batch-check reads them
// on stdin, so none is ever taken for an option.
func Objects(dir string, revs []string) ([]string, error) {
	if len(revs) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, rev := range revs {
		if rev == "" || strings.ContainsAny(rev, "\n\r") {
			return nil, fmt.Errorf("resolve %q: not a revision", rev)
		}
		in.WriteString(rev + "\n")
	}
	out, err := runWith(dir, nil, []byte(in.String()), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check in %s: %w", dir, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(revs) {
		return nil, fmt.Errorf("git cat-file --batch-check in %s: unexpected output %q", dir, out)
	}
	shas := make([]string, len(revs))
	for i, line := range lines {
		if !strings.HasSuffix(line, " missing") && !strings.HasSuffix(line, " ambiguous") {
			shas[i] = line
		}
	}
	return shas, nil
}
