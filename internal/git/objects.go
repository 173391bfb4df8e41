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

// Holds reports whether ref contains every one of commits, in one git
// process (rev-list reads them on stdin).
func (r Repo) Holds(ref string, commits []string) (bool, error) {
	var in strings.Builder
	for _, c := range append([]string{"^" + ref}, commits...) {
		if strings.ContainsAny(c, "\n\r") {
			return false, fmt.Errorf("rev-list %q: not a revision", c)
		}
		in.WriteString(c + "\n")
	}
	out, err := r.runWith(nil, []byte(in.String()), "rev-list", "--max-count=1", "--stdin")
	if err != nil {
		return false, fmt.Errorf("git rev-list ^%s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)) == "", nil
}

// TreePaths is the set of file paths (blobs, symlinks, submodules) in the
// tree of the commit rev.
func (r Repo) TreePaths(rev string) (map[string]bool, error) {
	out, err := r.run("ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", rev)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %w", rev, err)
	}
	set := map[string]bool{}
	for _, p := range splitNUL(out) {
		set[p] = true
	}
	return set, nil
}
