package workspace

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/stretchr/testify/require"
)

func TestDeriveName(t *testing.T) {
	cases := []struct{ task, name, branch string }{
		{"Add user authentication with JWT", "add-user-authentication-jwt", "feat/add-user-authentication-jwt"},
		{"Fix login redirect", "login-redirect", "fix/login-redirect"},
		{"bug: crash on empty input", "crash-empty-input", "fix/crash-empty-input"},
		{"Refactor the store", "store", "refactor/store"},
		{"docs for the API", "api", "docs/api"},
		{"Tests for parser", "parser", "test/parser"},
		{"chore: bump deps", "bump-deps", "chore/bump-deps"},
		{"perf: faster list", "faster-list", "perf/faster-list"},
		{"hotfix prod outage", "prod-outage", "hotfix/prod-outage"},
		{"fix", "fix", "fix/fix"},
		{"the a an", "the-a-an", "feat/the-a-an"},
		{"Don't break", "dont-break", "feat/dont-break"},
		{"Crème brûlée", "creme-brulee", "feat/creme-brulee"},
		{"日本語", "task", "feat/task"},
		{"$(rm -rf /); `x` 'y' \"z\"", "rm-rf-x-y-z", "feat/rm-rf-x-y-z"},
		{"a.lock", "lock", "feat/lock"},
		{"", "task", "feat/task"},
	}
	for _, c := range cases {
		name, branch := DeriveName(c.task)
		require.Equal(t, c.name, name, c.task)
		require.Equal(t, c.branch, branch, c.task)
	}
}

func TestDeriveNameIsAlwaysAValidRef(t *testing.T) {
	inputs := []string{
		strings.Repeat("supercalifragilistic", 20),
		strings.Repeat("word ", 2000),
		"..\n..\t--",
		"-leading dash",
		"trailing dot.",
		"emoji 🚀 launch",
		"\x00\x01 control",
	}
	for _, in := range inputs {
		name, branch := DeriveName(in)
		require.LessOrEqual(t, len(name), maxSlug, in)
		require.NoError(t, state.ValidateName(name), in)
		out, err := exec.Command("git", "check-ref-format", "--branch", branch).CombinedOutput()
		require.NoError(t, err, "%q → %q: %s", in, branch, out)
	}
}

func TestDeriveNameDropsWholeEscapeSequences(t *testing.T) {
	for task, want := range map[string]string{
		"fix \x1b]0;pwn\x07 login bug\x1b[2J":    "login-bug",
		"fix \x1b[1;31mred\x1b[0m button":        "red-button",
		"add \x1b]8;;http://x\x1b\\link\x1b]8;;": "add-link",
		"tidy \x1bPq#0;2;0;0;0\x1b\\ the docs":   "tidy-docs",
		"add \u009b2J table":                     "add-table",
	} {
		name, _ := DeriveName(task)
		if name != want {
			t.Errorf("DeriveName(%q) = %q, want %q", task, name, want)
		}
	}
}
