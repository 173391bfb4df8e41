package git

import "fmt"

// Patch is the diff from commit a to commit b as a patch (no colour, no
// external diff driver or textconv of the user's config), for a reader
// that is not a terminal: the AI review gets it.
func (r Repo) Patch(a, b string) (string, error) {
	out, err := r.run("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--end-of-options", a, b, "--")
	if err != nil {
		return "", fmt.Errorf("git diff %s %s: %w", a, b, err)
	}
	return string(out), nil
}
