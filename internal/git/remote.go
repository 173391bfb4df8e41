package git

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNoRemote is a repository with no remote to push to.
var ErrNoRemote = errors.New("the repository has no remote (add one: git remote add origin URL)")

// Remotes are the repository's remote names.
func (r Repo) Remotes() ([]string, error) {
	out, err := r.run("remote")
	if err != nil {
		return nil, fmt.Errorf("git remote: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// PushRemote is the remote a branch based on base goes to: the one named,
// else base's upstream remote, else "origin", else the only remote.
func (r Repo) PushRemote(named, base string) (string, error) {
	remotes, err := r.Remotes()
	if err != nil {
		return "", err
	}
	if named != "" {
		if !slices.Contains(remotes, named) {
			return "", fmt.Errorf("no remote %q (the repository has: %s)", named, strings.Join(remotes, ", "))
		}
		return named, nil
	}
	if up, err := r.runLine("config", "--get", "branch."+base+".remote"); err == nil && slices.Contains(remotes, up) {
		return up, nil
	}
	switch {
	case slices.Contains(remotes, "origin"):
		return "origin", nil
	case len(remotes) == 1:
		return remotes[0], nil
	case len(remotes) == 0:
		return "", ErrNoRemote
	}
	return "", fmt.Errorf("the repository has several remotes (%s): name one with [pr] remote", strings.Join(remotes, ", "))
}

// Push pushes branch to remote under the same name and sets it as the
// branch's upstream. It never forces. It runs under r's context: the
// run engine bounds it (WithContext); owt pr waits as long as the push
// and its hooks take.
func (r Repo) Push(remote, branch string) error {
	if _, err := r.run("push", "--quiet", "--set-upstream", "--end-of-options", remote, "refs/heads/"+branch+":refs/heads/"+branch); err != nil {
		return fmt.Errorf("push %s to %s: %w", branch, remote, err)
	}
	return nil
}

// PushCommitTo sends commit to the repository at url as ref (a full ref
// name outside refs/heads, so no branch, and none checked out there, is
// ever moved), with sshCommand as git's ssh (GIT_SSH_COMMAND). It never
// forces: a ref that already exists at another commit is refused by git.
func (r Repo) PushCommitTo(url, commit, ref, sshCommand string) error {
	if !strings.HasPrefix(ref, "refs/") || strings.HasPrefix(ref, "refs/heads/") {
		return fmt.Errorf("push %s: %q is not a ref outside refs/heads", commit, ref)
	}
	env := []string{"GIT_SSH_COMMAND=" + sshCommand, "GIT_SSH_VARIANT=ssh"}
	if _, err := r.runWith(env, nil, "push", "--quiet", "--no-verify", "--end-of-options", url, commit+":"+ref); err != nil {
		return fmt.Errorf("push %s to %s: %w", commit, url, err)
	}
	return nil
}

// RemoteURL is the URL of remote as configured (git remote get-url).
func (r Repo) RemoteURL(remote string) (string, error) {
	url, err := r.runLine("remote", "get-url", "--end-of-options", remote)
	if err != nil {
		return "", fmt.Errorf("the URL of remote %s: %w", remote, err)
	}
	return url, nil
}

// FetchBranchFrom brings branch from the repository at url into the
// local branch of the same name, with sshCommand as git's ssh. It never
// forces: git refuses a local branch that is not an ancestor of the
// fetched one, and a branch checked out here.
func (r Repo) FetchBranchFrom(url, branch, sshCommand string) error {
	env := []string{"GIT_SSH_COMMAND=" + sshCommand, "GIT_SSH_VARIANT=ssh"}
	ref := BranchRef(branch)
	if _, err := r.runWith(env, nil, "fetch", "--quiet", "--no-tags", "--end-of-options", url, ref+":"+ref); err != nil {
		return fmt.Errorf("fetch %s from %s: %w", branch, url, err)
	}
	return nil
}

// FetchBranchAs brings branch from the repository at url into the local
// branch local, moved to whatever the fetched branch is (forced): local
// must be owt's own, under OwnFetchPrefix, which no user branch and no
// agent here uses. git still refuses a branch checked out here.
func (r Repo) FetchBranchAs(url, branch, local, sshCommand string) error {
	if !strings.HasPrefix(local, OwnFetchPrefix) || !plausibleBranchName(local) {
		return fmt.Errorf("fetch %s: %q is not a branch of owt's own (%s…)", branch, local, OwnFetchPrefix)
	}
	env := []string{"GIT_SSH_COMMAND=" + sshCommand, "GIT_SSH_VARIANT=ssh"}
	if _, err := r.runWith(env, nil, "fetch", "--quiet", "--no-tags", "--end-of-options", url, "+"+BranchRef(branch)+":"+BranchRef(local)); err != nil {
		return fmt.Errorf("fetch %s from %s: %w", branch, url, err)
	}
	return nil
}

// OwnFetchPrefix starts the names of the branches owt fetches a remote
// agent's work into before it lands it (owt/remote/HOST/BRANCH): never a
// user's branch nor a local agent's, so two agents of one name on two
// machines never mix.
const OwnFetchPrefix = "owt/remote/"

// PushBranchTo moves branch in the repository at url to commit, as git
// push without force does: only a fast-forward, and never a branch
// checked out there (git's receive.denyCurrentBranch refuses it).
func (r Repo) PushBranchTo(url, commit, branch, sshCommand string) error {
	env := []string{"GIT_SSH_COMMAND=" + sshCommand, "GIT_SSH_VARIANT=ssh"}
	if _, err := r.runWith(env, nil, "push", "--quiet", "--no-verify", "--end-of-options", url, commit+":"+BranchRef(branch)); err != nil {
		return fmt.Errorf("push %s to %s on %s: %w", commit, branch, url, err)
	}
	return nil
}
