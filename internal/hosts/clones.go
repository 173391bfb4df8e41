package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
)

// Clones a host has of local repositories, found under its [hosts] search
// directories by their origin URL, are remembered here (by host, then
// local root), so every later command knows them without searching.
type foundClones map[string]map[string]string

func clonesFile() state.JSONFile[foundClones] {
	path := filepath.Join(state.Dir(), "hosts", "clones.json")
	return state.JSONFile[foundClones]{Path: path, What: "the clones found on hosts", Load: func() (*foundClones, error) {
		f := foundClones{}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return &f, nil
		}
		if err != nil {
			return nil, err
		}
		if json.Unmarshal(b, &f) != nil {
			return &foundClones{}, nil // found again by the next search
		}
		return &f, nil
	}}
}

// found is the clone of root remembered on the host, if any.
func (h *Host) found(root string) (string, bool) {
	f, err := clonesFile().Load()
	if err != nil {
		return "", false
	}
	p, ok := (*f)[h.Name][root]
	return p, ok
}

func (h *Host) rememberClone(root, clone string) error {
	return clonesFile().Update(func(f *foundClones) (bool, error) {
		if (*f)[h.Name] == nil {
			(*f)[h.Name] = map[string]string{}
		}
		(*f)[h.Name][root] = clone
		return true, nil
	})
}

// searchScript prints "DIR<TAB>ORIGIN" for each git checkout one level
// below each directory it is given (relative ones are under the remote
// home, where ssh starts).
const searchScript = `for top in "$@"; do
  for d in "$top"/*/; do
    [ -e "$d.git" ] || continue
    u=$(git -C "$d" remote get-url origin 2>/dev/null) || continue
    printf '%s\t%s\n' "${d%/}" "$u"
  done
done`

// FindClone is the host's clone of repo: [hosts.NAME] repos, else one
// found before, else a checkout directly under a [hosts.NAME] search
// directory whose origin is repo's (remembered from then on).
func (h *Host) FindClone(ctx context.Context, repo git.Repo) (string, error) {
	if p, ok := h.Clone(repo.Root); ok {
		return p, nil
	}
	if len(h.Config.Search) == 0 {
		return "", fmt.Errorf("%w: %s has none of %s — add it to [hosts.%s] repos, or a search directory holding a clone",
			ErrNoClone, h.Name, repo.Root, h.Name)
	}
	origin, err := repo.RemoteURL("origin")
	if err != nil {
		return "", fmt.Errorf("%w: %s has no repos entry for %s, and the clone cannot be searched for without an origin (%v)", ErrNoClone, h.Name, repo.Root, err)
	}
	dirs := make([]string, len(h.Config.Search))
	for i, d := range h.Config.Search {
		dirs[i] = homeRelative(d)
	}
	out, err := h.SSH.Output(ctx, ssh.Remote{Argv: append([]string{"sh", "-c", searchScript, "owt-search"}, dirs...)})
	if err != nil {
		return "", fmt.Errorf("search %s for a clone: %w", h.Name, err)
	}
	want := sameRepo(origin)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, url, ok := strings.Cut(line, "\t")
		if !ok || sameRepo(url) != want {
			continue
		}
		if !strings.HasPrefix(dir, "/") {
			dir = "~/" + strings.TrimPrefix(dir, "./")
		}
		if err := h.rememberClone(repo.Root, dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	return "", fmt.Errorf("%w: no checkout with origin %s directly under %s on %s", ErrNoClone, origin, strings.Join(h.Config.Search, ", "), h.Name)
}

// homeRelative is a search directory as the remote shell should get it:
// "~/src" is "src" (ssh starts in the home), "~" is ".".
func homeRelative(d string) string {
	switch {
	case d == "~":
		return "."
	case strings.HasPrefix(d, "~/"):
		return strings.TrimPrefix(d, "~/")
	}
	return d
}

// sameRepo is a URL reduced to what names the repository: no trailing
// ".git" or "/", no scheme, user or port differences for ssh forms.
func sameRepo(url string) string {
	u := strings.TrimSpace(url)
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	for _, p := range []string{"ssh://", "https://", "http://", "git://", "file://"} {
		u = strings.TrimPrefix(u, p)
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.IndexAny(u+":/", ":/") {
		u = u[at+1:]
	}
	return strings.Replace(u, ":", "/", 1)
}

// cloneScript clones the URL on its stdin (one line) to $1 unless a
// checkout is there, and says which ("exists", "cloned"); with $2 = "no",
// it only says "exists" or "missing".
const cloneScript = `set -e
IFS= read -r url || true
if [ -e "$1/.git" ]; then echo exists; exit 0; fi
if [ "$2" = no ]; then echo missing; exit 0; fi
mkdir -p "$(dirname -- "$1")"
git clone -q -- "$url" "$1"
echo cloned`

// EnsureClone checks that the host has a checkout at remote (a repos
// entry) and, with clone, makes one from url (the local repository's
// origin, passed on stdin) when it does not. It says "exists", "cloned"
// or "missing".
func (h *Host) EnsureClone(ctx context.Context, remote, url string, clone bool) (string, error) {
	flag := "no"
	if clone {
		flag = "yes"
	}
	out, err := h.SSH.Output(ctx, ssh.Remote{Argv: []string{"sh", "-c", cloneScript, "owt-clone", homeRelative(remote), flag},
		Stdin: strings.NewReader(url + "\n")})
	if err != nil {
		return "", fmt.Errorf("clone %s on %s: %w", remote, h.Name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Forget drops what this machine remembers of the host: clones found
// there, its last lists and its status file.
func (h *Host) Forget() error {
	err := clonesFile().Update(func(f *foundClones) (bool, error) {
		if _, ok := (*f)[h.Name]; !ok {
			return false, nil
		}
		delete(*f, h.Name)
		return true, nil
	})
	if rerr := os.Remove(h.seenFile().Path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	if serr := state.RemoveHostStatus(h.Name); serr != nil && err == nil {
		err = serr
	}
	return err
}
