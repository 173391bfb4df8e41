package run_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/workspace"
)

// run keeps its own copy of workspace.ValidateName's rule (it may not
// import workspace); this keeps the two equal.
func TestValidNameIsWorkspacesRule(t *testing.T) {
	for _, name := range []string{
		"a", "models", "api-v2", "x.y_z", "9lives", strings.Repeat("a", 64), strings.Repeat("a", 65),
		"", "-a", ".a", "_a", "a b", "a/b", "a..b", "a.lock", "é", "a:b", "a\n", "h", "help",
	} {
		require.Equal(t, workspace.ValidateName(name) == nil, run.ValidName(name), "%q", name)
	}
}
