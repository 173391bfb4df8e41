package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// owt doctor --fix says what it did for a lost session as EnsureSession
// does it: an agent starts again (resumed, or fresh with an account of
// its work), and only a shell, a swarm's worktree, an agent that had
// exited before or an unknown tool gets a bare shell, saying which
// (issue 35: "a shell; agents are not restarted" for an agent restarted
// fresh).
func TestDoctorFixSaysWhetherTheAgentStartedAgain(t *testing.T) {
	w := Of(&workspace.Workspace{Tools: map[string]agent.Profile{"claude": {}}})
	code := 0
	for _, c := range []struct {
		rec   state.Record
		shell string
	}{
		{state.Record{Tool: "claude", Status: state.Idle}, ""},
		{state.Record{Tool: "claude", NoAgent: true}, "--no-agent"},
		{state.Record{Tool: "claude", Status: state.Exited, ExitCode: &code}, "exited by itself"},
		{state.Record{Tool: "gone"}, "no longer knows its tool gone"},
	} {
		why := w.shellOnly(&c.rec)
		if c.shell == "" {
			require.Empty(t, why)
			for _, resumes := range []bool{true, false} {
				a := recreatedAction("s", why, resumes)
				require.Contains(t, a, "started its agent again")
				require.NotContains(t, a, "shell")
			}
			continue
		}
		require.Contains(t, why, c.shell)
		require.Contains(t, recreatedAction("s", why, false), "(a shell: "+why+")")
	}
}
