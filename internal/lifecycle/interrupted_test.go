package lifecycle

import "testing"

func TestGitSubcommandSkipsGitsOwnOptions(t *testing.T) {
	for want, args := range map[string][]string{
		"worktree": {"git", "worktree", "add", "-b", "x", "--", "/p"},
		"log":      {"git", "-C", "/wt", "-c", "core.pager=less", "--no-pager", "log", "-p"},
		"reset":    {"/usr/bin/git", "reset", "--hard"},
		"":         {"git", "-C", "/wt"},
	} {
		if got := gitSubcommand(args); got != want {
			t.Errorf("gitSubcommand(%q) = %q, want %q", args, got, want)
		}
	}
}
