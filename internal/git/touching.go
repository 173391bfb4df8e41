package git

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// TouchingCommit is one commit of the other side of a conflict.
type TouchingCommit struct {
	ID      string              // the full id: stable, unlike an abbreviation
	Subject untrusted.Untrusted // the commit author's words
}

// CommitsTouching are the newest n commits on theirs but not on ours that
// touch any of files (taken literally, never as pathspec magic), newest
// first: what a conflict's cause is made of on the other side.
func (r Repo) CommitsTouching(ours, theirs string, files []string, n int) ([]TouchingCommit, error) {
	args := []string{"--literal-pathspecs", "log", fmt.Sprintf("-n%d", n), "--format=%H%x00%s", "--end-of-options", ours + ".." + theirs, "--"}
	out, err := r.run(append(args, files...)...)
	if err != nil {
		return nil, fmt.Errorf("git log %s..%s: %w", ours, theirs, err)
	}
	var cs []TouchingCommit
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if id, subject, ok := strings.Cut(line, "\x00"); ok {
			cs = append(cs, TouchingCommit{ID: id, Subject: untrusted.From(subject)})
		}
	}
	return cs, nil
}
