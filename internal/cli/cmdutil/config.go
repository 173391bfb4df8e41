package cmdutil

import (
	"errors"
	"fmt"
	"os"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
)

// LoadConfig loads the config of the current repo, or only the user's when
// not in a repo (tools and config work anywhere).
func LoadConfig() (config.Config, string, error) {
	root := ""
	if wd, err := os.Getwd(); err == nil {
		if r, err := git.FindRepo(wd); err == nil {
			root = r.Root
		}
	}
	cfg, err := config.Load(root)
	return cfg, root, err
}

// ConfigProblem is the one line a command stops on when the config does
// not load: the first problem, with its file and key, and where to see all.
func ConfigProblem(root string, err error) error {
	var ps config.Problems
	if errors.As(err, &ps) {
		err = config.Locate(root, ps)
	}
	return fmt.Errorf("config: %w (run 'owt config validate')", firstProblem(err))
}

// firstProblem is the first of a config error's problems, saying how many
// more there are.
func firstProblem(err error) error {
	var ps config.Problems
	if errors.As(err, &ps) && len(ps) > 0 {
		if len(ps) > 1 {
			return fmt.Errorf("%s (and %d more)", ps[0].Error(), len(ps)-1)
		}
		return ps[0]
	}
	return err
}
