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

// MessagesBetween are the commits reachable from to and not from from
// (from..to: the commits a merge of to into a branch at from brings), at
// most n, newest first, merge commits left out, with their messages.
func (r Repo) MessagesBetween(from, to string, n int) ([]Commit, error) {
	out, err := r.run("log", "--no-merges", "-z", fmt.Sprintf("-n%d", n), "--format=%H%x1f%s%x1f%b", "--end-of-options", to, "^"+from, "--")
	if err != nil {
		return nil, fmt.Errorf("git log %s..%s: %w", from, to, err)
	}
	return parseLog(out), nil
}

// parseLog reads git log -z --format=%H%x1f%s%x1f%b.
func parseLog(out []byte) []Commit {
	var commits []Commit
	for _, rec := range splitNUL(out) {
		f := strings.SplitN(rec, "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		commits = append(commits, Commit{Hash: strings.TrimSpace(f[0]), Subject: f[1], Body: strings.TrimSpace(f[2])})
	}
	return commits
}

// HasCommit reports whether the object name is a commit in the repository.
func (r Repo) HasCommit(hash string) bool {
	_, err := r.run("cat-file", "-e", "--end-of-options", hash+"^{commit}")
	return err == nil
}
