package git

import (
	"fmt"
	"strings"
)

// Commit is one commit's id and message.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	Body    string `json:"body,omitempty"`
}

// Messages are the last n non-merge commits reachable from rev, newest
// first, with their messages.
func (r Repo) Messages(rev string, n int) ([]Commit, error) {
	out, err := r.run("log", "--no-merges", "-z", fmt.Sprintf("-n%d", n), "--format=%H%x1f%s%x1f%b", "--end-of-options", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("git log %s: %w", rev, err)
	}
	var commits []Commit
	for _, rec := range splitNUL(out) {
		f := strings.SplitN(rec, "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		commits = append(commits, Commit{Hash: strings.TrimSpace(f[0]), Subject: f[1], Body: strings.TrimSpace(f[2])})
	}
	return commits, nil
}

// HasCommit reports whether the object name is a commit in the repository.
func (r Repo) HasCommit(hash string) bool {
	_, err := r.run("cat-file", "-e", "--end-of-options", hash+"^{commit}")
	return err == nil
}
