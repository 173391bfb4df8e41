package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Repo is a repository as seen from one of its worktrees.
//
// Root is always the main checkout, even when found from a linked worktree:
// owt keys its state by repository, and an agent's worktree must map to the
// same repository as the checkout it was created from. Methods on Repo run git
// in Root, so refs like "HEAD" mean the main checkout's HEAD.
type Repo struct {
	Root      string // top level of the main worktree (absolute, symlinks resolved)
	CommonDir string // absolute git common dir (e.g. Root/.git), shared by all worktrees
	// HeadBranch is the branch checked out in the directory FindRepo was
	// given, read in the same git call; "" when detached or unborn.
	HeadBranch string
	// Toplevel is the work tree of the directory FindRepo was given: Root
	// in the main checkout, a linked worktree's own top level there.
	Toplevel string

	// ctx bounds every git command run on this repo (nil: none); see
	// WithContext.
	ctx context.Context
}

// WithContext returns r whose git commands run under ctx: when it ends
// (a deadline of the monitor or the run engine, a cancel) the running git
// is killed and the call fails with ctx's error.
func (r Repo) WithContext(ctx context.Context) Repo {
	r.ctx = ctx
	return r
}

func (r Repo) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// FindRepo finds the repository containing dir, which may be the main
// checkout, any directory below it, or a linked worktree. It returns an error
// wrapping ErrNotRepo outside a repository. Bare repositories (and worktrees of
// them) are rejected: they have no main checkout for Root to name.
func FindRepo(dir string) (Repo, error) {
	r, _, _, err := findRepo(dir, false)
	return r, err
}

// Found is what FindRepoAndNames reads in its one git call.
type Found struct {
	Repo Repo
	// Names is the repository's NamesInUse.
	Names map[string]string
	// HeadCommit is the commit HEAD is at where it was asked, "" when
	// HEAD has none yet.
	HeadCommit string
}

// FindRepoAndNames is FindRepo, NamesInUse and HEAD's commit, read in the
// same git call: owt new needs them all before anything else.
func FindRepoAndNames(dir string) (Found, error) {
	r, head, refs, err := findRepo(dir, true)
	if err != nil {
		return Found{}, err
	}
	return Found{Repo: r, Names: namesInUse(refs), HeadCommit: head}, nil
}

// findRepo is FindRepo; with withRefs, also HEAD's commit and every
// ref's name (as for-each-ref lists them: symbolic refs by their own
// name).
func findRepo(dir string, withRefs bool) (repo Repo, headCommit string, refs []string, err error) {
	out, withHead, err := askRepo(dir, withRefs)
	if err != nil {
		return Repo{}, "", nil, err
	}
	f, head, headCommit, refs, err := readRepoAnswer(dir, out, withHead, withRefs)
	if err != nil {
		return Repo{}, "", nil, err
	}
	if f[0] == "true" {
		return Repo{}, "", nil, fmt.Errorf("%s: bare repositories are not supported", dir)
	}
	if f[1] != "true" {
		return Repo{}, "", nil, fmt.Errorf("%s: not inside a work tree", dir)
	}
	repo, err = repoAt(dir, f[2], f[3], f[4])
	if err != nil {
		return Repo{}, "", nil, err
	}
	repo.HeadBranch = head
	return repo, headCommit, refs, nil
}

// askRepo asks git, in one call for the common case (the main checkout:
// owt runs this on every command, so each process counts), whether dir
// is in a bare repository or a work tree, its common and own git dirs
// and its top level, and unless HEAD is unborn HEAD's name (with
// withRefs HEAD's commit before it, then the object format and every
// ref). withHead says whether HEAD was asked.
func askRepo(dir string, withRefs bool) (out []byte, withHead bool, err error) {
	args := []string{"rev-parse", "--is-bare-repository", "--is-inside-work-tree",
		"--path-format=absolute", "--git-common-dir", "--absolute-git-dir", "--show-toplevel"}
	headArgs := []string{"--symbolic-full-name", "HEAD"}
	var refsArgs []string
	if withRefs {
		// HEAD's commit, its name, and after a line no ref can be (the
		// object format's name: refs print in full, "refs/…") every ref:
		// with a ref called HEAD too, git prints no name at all, and the
		// line tells where the refs begin.
		headArgs = []string{"HEAD", "--symbolic-full-name", "HEAD"}
		refsArgs = []string{"--show-object-format", "--symbolic", "--all"}
	}
	withHead = true
	out, err = run(dir, slices.Concat(args, headArgs, refsArgs)...)
	if err != nil {
		// An unborn HEAD (no commit yet) makes the HEAD query fail: ask
		// again without it.
		withHead = false
		out, err = run(dir, slices.Concat(args, refsArgs)...)
	}
	if err != nil {
		if explained := noWorkTree(dir, err); explained != nil {
			return nil, false, explained
		}
		if err := notRepo(err); errors.Is(err, ErrNotRepo) {
			return nil, false, fmt.Errorf("%s: %w", dir, err)
		}
		return nil, false, fmt.Errorf("git rev-parse in %s: %w", dir, err)
	}
	return out, withHead, nil
}

// readRepoAnswer splits askRepo's answer: the five fixed answers, HEAD's
// branch ("" when detached or unborn) and commit, and the refs.
func readRepoAnswer(dir string, out []byte, withHead, withRefs bool) (f []string, head, headCommit string, refs []string, err error) {
	f = strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) >= 4 && f[0] == "true" {
		return nil, "", "", nil, fmt.Errorf("%s: bare repositories are not supported", dir)
	}
	fixed := 5 // the answers to args
	if withHead {
		fixed++ // HEAD's name
		if withRefs {
			fixed++ // HEAD's commit, before it
		}
	}
	if withRefs {
		fixed++ // the object format
	}
	if len(f) < fixed || (!withRefs && len(f) != fixed) || (withRefs && !objectFormat(f[fixed-1])) {
		return nil, "", "", nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	if withHead {
		name := f[5]
		if withRefs {
			name = f[6]
		}
		head = strings.TrimPrefix(name, "refs/heads/")
		if !strings.HasPrefix(name, "refs/heads/") {
			head = "" // detached: rev-parse printed "HEAD"
		}
		if withRefs {
			headCommit = f[5]
		}
	}
	return f[:5], head, headCommit, f[fixed:], nil
}

// repoAt is the repository of dir from git's common dir, dir's own git
// dir and its top level: the main worktree's root is the top level of the
// one that owns the common dir.
func repoAt(dir, commonDir, gitDir, toplevel string) (Repo, error) {
	common, err := realPath(commonDir)
	if err != nil {
		return Repo{}, err
	}
	own, err := realPath(gitDir)
	if err != nil {
		return Repo{}, err
	}
	var root string
	if own == common {
		// The main worktree owns the common dir itself.
		if root, err = realPath(toplevel); err != nil {
			return Repo{}, err
		}
	} else {
		// A linked worktree: git lists the main worktree first.
		wts, err := worktrees(dir, common)
		if err != nil {
			return Repo{}, err
		}
		if len(wts) == 0 || wts[0].Bare {
			return Repo{}, fmt.Errorf("%s: worktree of a bare repository is not supported", dir)
		}
		if root, err = realPath(wts[0].Path); err != nil {
			return Repo{}, err
		}
	}
	top, err := realPath(toplevel)
	if err != nil {
		return Repo{}, err
	}
	return Repo{Root: root, CommonDir: common, Toplevel: top}, nil
}

// objectFormat reports whether line is what --show-object-format prints.
func objectFormat(line string) bool { return line == "sha1" || line == "sha256" }

// ErrNoCommits is returned when a worktree is asked of a repository whose
// branch has no commit to start from.
var ErrNoCommits = errors.New("no commits yet: make a first commit (every worktree branches from one)")

// HasCommits reports whether HEAD names a commit (false in a new repository).
func (r Repo) HasCommits() bool {
	_, err := r.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return err == nil
}

// noWorkTree explains git's "must be run in a work tree", which FindRepo
// meets in a bare repository and inside a .git directory.
func noWorkTree(dir string, err error) error {
	var re *runError
	if !errors.As(err, &re) || !strings.Contains(re.stderr, "must be run in a work tree") {
		return nil
	}
	if bare, _ := runLine(dir, "rev-parse", "--is-bare-repository"); bare == "true" {
		return fmt.Errorf("%s is a bare repository, with no checkout for agents to branch from: run owt in a clone of it", dir)
	}
	return fmt.Errorf("%s is inside a .git directory: run owt in the checkout", dir)
}

// TopLevel returns the top level of the worktree containing dir (which, for
// a linked worktree, is that worktree and not the main checkout).
func TopLevel(dir string) (string, error) {
	top, err := runLine(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("git rev-parse --show-toplevel in %s: %w", dir, notRepo(err))
	}
	return realPath(top)
}

// Name is the repository's display name: the base name of its main checkout.
func (r Repo) Name() string { return filepath.Base(r.Root) }

// CurrentBranch returns the short name of the branch checked out in dir, or
// "" when HEAD is detached. An unborn branch (no commits yet) is still named.
func CurrentBranch(dir string) (string, error) {
	ref, err := runLine(dir, "symbolic-ref", "-q", "HEAD")
	if err != nil {
		if exitCode(err) == 1 { // -q: HEAD is not a symbolic ref, i.e. detached
			return "", nil
		}
		return "", fmt.Errorf("git symbolic-ref HEAD in %s: %w", dir, notRepo(err))
	}
	// Strip the prefix ourselves: --short would turn refs/heads/x into
	// "heads/x" when a tag x also exists.
	return strings.TrimPrefix(ref, "refs/heads/"), nil
}

// ResolveCommit returns the full object name of the commit ref points to.
func (r Repo) ResolveCommit(ref string) (string, error) {
	sha, err := r.runLine("rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || sha == "" {
		if exitCode(err) == 1 || (err == nil && sha == "") {
			return "", fmt.Errorf("git rev-parse %s: no such commit", ref)
		}
		return "", fmt.Errorf("git rev-parse %s: %w", ref, err)
	}
	return sha, nil
}

// BranchExists reports whether the local branch refs/heads/name exists.
func (r Repo) BranchExists(name string) bool {
	if name == "" {
		return false
	}
	_, err := r.run("show-ref", "--verify", "--quiet", "refs/heads/"+name)
	return err == nil
}

// BaseRef is what a worktree's work is measured against: its base branch
// (as refs/heads/<branch>, never a tag of the same name), or the commit it
// started from (commit) when that branch is gone.
func (r Repo) BaseRef(branch, commit string) string {
	if commit == "" || r.BranchExists(branch) {
		return BranchRef(branch)
	}
	return commit
}

// ValidBranchName reports whether name is acceptable as a new branch name,
// with git's own rules (git check-ref-format --branch). It needs no
// repository. Names git would read as an option or as a special ref are
// rejected too, since they could never be passed back to git safely.
func ValidBranchName(name string) bool {
	// "HEAD" and "@" are legal branch names to git but mean HEAD when passed
	// back as a revision; "@{-N}" would be expanded instead of checked.
	if !plausibleBranchName(name) {
		return false
	}
	_, err := run(tempDir(), "check-ref-format", "--branch", name)
	return err == nil
}

// plausibleBranchName rejects, without running git, the names that git
// would read as an option or a special revision.
func plausibleBranchName(name string) bool {
	return name != "" && name != "HEAD" && name != "@" && !strings.HasPrefix(name, "-") && !strings.Contains(name, "@{")
}

// DeleteBranch deletes a local branch; force uses -D, which also deletes a
// branch that is not merged.
func (r Repo) DeleteBranch(name string, force bool) error {
	flag := "-d"
	if force {
		flag = "-D"
	}
	// git checks every worktree's HEAD before it deletes a branch.
	return r.withWorktreeLock(false, func() error {
		if _, err := r.run("branch", flag, "--", name); err != nil {
			return fmt.Errorf("git branch %s %s: %w", flag, name, err)
		}
		return nil
	})
}

// AheadBehind counts the commits on branch that are not in base (ahead) and
// the commits in base that are not on branch (behind).
func (r Repo) AheadBehind(base, branch string) (ahead, behind int, err error) {
	out, err := r.runLine("rev-list", "--left-right", "--count", "--end-of-options", base+"..."+branch)
	if err != nil {
		return 0, 0, fmt.Errorf("git rev-list %s...%s: %w", base, branch, err)
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("git rev-list %s...%s: unexpected output %q", base, branch, out)
	}
	if behind, err = strconv.Atoi(f[0]); err == nil {
		ahead, err = strconv.Atoi(f[1])
	}
	if err != nil {
		return 0, 0, fmt.Errorf("git rev-list %s...%s: %w", base, branch, err)
	}
	return ahead, behind, nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b; it is
// false when either does not resolve.
func (r Repo) IsAncestor(a, b string) bool {
	_, err := r.run("merge-base", "--is-ancestor", "--end-of-options", a, b)
	return err == nil
}

// LastCommitTime returns the committer time of the commit ref points to, used
// to tell stale worktrees from active ones.
func (r Repo) LastCommitTime(ref string) (time.Time, error) {
	out, err := r.runLine("log", "-1", "--format=%ct", "--end-of-options", ref, "--")
	if err != nil {
		return time.Time{}, fmt.Errorf("git log %s: %w", ref, err)
	}
	sec, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log %s: unexpected output %q", ref, out)
	}
	return time.Unix(sec, 0), nil
}

// tempDir is a directory that surely exists, for git commands that need no
// repository but still get -C.
func tempDir() string {
	if d := os.TempDir(); isDir(d) {
		return d
	}
	return "/"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// DefaultBranch is the repository's own main line, as a local branch:
// the one origin/HEAD names, else init.defaultBranch, else main or
// master; "" when none of them is a local branch.
func (r Repo) DefaultBranch() string {
	var names []string
	if ref, err := r.runLine("symbolic-ref", "-q", "refs/remotes/origin/HEAD"); err == nil {
		names = append(names, strings.TrimPrefix(ref, "refs/remotes/origin/"))
	}
	if v, err := r.runLine("config", "--get", "init.defaultBranch"); err == nil {
		names = append(names, v)
	}
	for _, n := range append(names, "main", "master") {
		if r.BranchExists(n) {
			return n
		}
	}
	return ""
}
