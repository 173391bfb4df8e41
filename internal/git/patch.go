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

// InitEmpty makes dir (which exists) an empty repository: a neutral place
// to run a tool that insists on one (codex exec) away from any worktree.
func InitEmpty(dir string) error {
	if _, err := run(dir, "init", "-q"); err != nil {
		return fmt.Errorf("git init in %s: %w", dir, err)
	}
	return nil
}
