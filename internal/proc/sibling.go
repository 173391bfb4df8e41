package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// Sibling finds name, one of owt's programs (owt, owt-popup, owt-mcp),
// for the program at self: beside it first — they are built
// and installed together, and a link to self counts as its real place —
// then on PATH. A missing one is named in the error, with how to install
// owt's programs together.
func Sibling(self, name string) (string, error) {
	if self != "" {
		dirs := []string{filepath.Dir(self)}
		if real, err := filepath.EvalSymlinks(self); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			if p := filepath.Join(d, name); executable(p) {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath(name)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	where := "owt"
	if self != "" {
		where = filepath.Dir(self)
	}
	return "", fmt.Errorf("%s is not installed beside %s or on PATH: install owt's programs together "+
		"(the release archive with scripts/install.sh, make install, or go install ./cmd/...; see docs/install.md)", name, where)
}

// LookPathIn is exec.LookPath over the folders of path (a PATH value),
// not $PATH: the first executable file named name, or "".
func LookPathIn(name, path string) string {
	if all := OnPath(name, path); len(all) > 0 {
		return all[0]
	}
	return ""
}

// OnPath is every executable file named name in the absolute folders of
// path (a PATH value), in its order, each once.
func OnPath(name, path string) []string {
	var found []string
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if filepath.IsAbs(d) && executable(p) && !slices.Contains(found, p) {
			found = append(found, p)
		}
	}
	return found
}

func executable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}
