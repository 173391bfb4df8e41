package forge

import (
	"encoding/json"
	"fmt"
)

// findFields are what Find asks of each pull request of a branch.
const findFields = "number,url,state,isDraft,baseRefName,headRefName,headRefOid"

// Find reads the open pull request whose head is branch (gh pr list
// --head, one call, run in dir); found is false when it has none. It
// looks the branch up by name: gh pr view would read a branch that looks
// like a number ("7") as that pull request's number. Every failure (not
// logged in, not installed, no GitHub remote) is an error.
func (c Client) Find(dir, branch string) (pr PR, found bool, err error) {
	out, err := c.run(dir, "pr", "list", "--head", branch, "--state", "all", "--json", findFields, "--limit", "30")
	if err != nil {
		return PR{}, false, err
	}
	var prs []PR
	if err := json.Unmarshal(out, &prs); err != nil {
		return PR{}, false, fmt.Errorf("gh pr list --head %s: unexpected output: %v", branch, err)
	}
	for _, p := range prs {
		if p.HeadRefName == branch && p.State == "OPEN" {
			return p, true, nil
		}
	}
	return PR{}, false, nil
}
