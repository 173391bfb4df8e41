// Package git is the only code in owt that runs git.
//
// Every operation runs the real git binary directly (never through a shell, so
// branch names, paths and refs can never be interpreted as shell syntax), always
// with -C dir so the caller's working directory never matters, and with an
// environment that keeps git non-interactive and its messages parseable.
package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/owt-tmux/owt/internal/proc"
)

// ErrNotRepo is returned (wrapped) when a directory is not inside a git
// repository, so callers can tell "run this inside a repo" apart from real
// failures.
var ErrNotRepo = errors.New("not a git repository")

// scrubbedEnv lists variables that would redirect git to another repository
// or index than the one named by -C (they are set, for example, while git
// hooks run). owt always means the repository at the directory it passes.
var scrubbedEnv = []string{
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE",
	"GIT_PREFIX",
}

// env is the environment for every git process:
//   - GIT_TERMINAL_PROMPT=0: git must never block waiting for credentials on a
//     terminal owt does not own (popups, background monitor).
//   - LC_ALL=C: messages we match on (e.g. "not a git repository") stay English.
//   - GIT_OPTIONAL_LOCKS=0: read-only commands such as status must not take
//     index.lock behind an agent's back, or the agent's own git commands in the
//     same worktree would fail with "index.lock exists".
func env() []string {
	out := make([]string, 0, len(os.Environ())+3)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if isScrubbed(name) || name == "GIT_TERMINAL_PROMPT" || name == "LC_ALL" || name == "GIT_OPTIONAL_LOCKS" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
}

func isScrubbed(name string) bool {
	for _, s := range scrubbedEnv {
		if name == s {
			return true
		}
	}
	return false
}

// runError is a failed git invocation: the exit status plus git's own
// (trimmed) stderr, which is usually the only useful part. Call sites wrap it
// with the operation, e.g. "git worktree add PATH: exit status 128: fatal: …".
type runError struct {
	err    error
	stderr string
}

func (e *runError) Error() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	return e.err.Error() + ": " + e.stderr
}

func (e *runError) Unwrap() error { return e.err }

// exitCode reports git's exit status, or -1 when git did not run or was killed.
// Some commands (merge-base --is-ancestor, symbolic-ref -q) answer through it.
func exitCode(err error) int {
	code, _ := proc.ExitCode(err)
	return code
}

// run executes git -C dir args... and returns its stdout, with no
// deadline of its own (the caller's process is the bound: ^C ends it).
func run(dir string, args ...string) ([]byte, error) {
	return runIn(context.Background(), dir, nil, nil, args...)
}

// runLine is run for commands that print a single value.
func runLine(dir string, args ...string) (string, error) {
	out, err := run(dir, args...)
	return strings.TrimSpace(string(out)), err
}

// runWith is run with extra environment and stdin.
func runWith(dir string, extraEnv []string, stdin []byte, args ...string) ([]byte, error) {
	return runIn(context.Background(), dir, extraEnv, stdin, args...)
}

// run, runLine and runWith on a Repo run under its context (WithContext),
// so a caller with a deadline (the monitor, the run engine) bounds them.
func (r Repo) run(args ...string) ([]byte, error) {
	return runIn(r.context(), r.Root, nil, nil, args...)
}

func (r Repo) runLine(args ...string) (string, error) {
	out, err := r.run(args...)
	return strings.TrimSpace(string(out)), err
}

func (r Repo) runWith(extraEnv []string, stdin []byte, args ...string) ([]byte, error) {
	return runIn(r.context(), r.Root, extraEnv, stdin, args...)
}

// runIn is the one place git is started: -C dir, owt's environment, the
// context's deadline, and OWT_TRACE's trace (internal/proc).
func runIn(ctx context.Context, dir string, extraEnv []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := proc.Command(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(env(), extraEnv...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := proc.Run(ctx, cmd); err != nil {
		return stdout.Bytes(), &runError{err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), nil
}

// notRepo marks git's "not a git repository" failure as ErrNotRepo for
// errors.Is, keeping git's message as the text.
func notRepo(err error) error {
	var re *runError
	if errors.As(err, &re) && strings.Contains(re.stderr, "not a git repository") {
		return notRepoError{err}
	}
	return err
}

type notRepoError struct{ error }

func (e notRepoError) Error() string {
	return "not a git repository (nor is any folder above it): run owt inside a git checkout"
}
func (e notRepoError) Unwrap() error        { return e.error }
func (e notRepoError) Is(target error) bool { return target == ErrNotRepo }

// splitNUL splits -z output into its fields, dropping the trailing empty one.
func splitNUL(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// realPath makes p absolute and resolves symlinks so paths from git and from
// the user compare equal (e.g. macOS /var vs /private/var).
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
