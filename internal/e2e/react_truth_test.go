package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Reactions and PRs that say only what is true: a conflict is one cause
// however often its base moves for other reasons, gh not logged in is
// said where the user looks and retried, and what gh or a reviewer says
// reaches the agent and the terminal bounded.

// A conflict's cause is the conflicting files and the other side's
// commits that touch them: main moving on for unrelated reasons sends
// nothing new (and burns no attempt); a new conflicting commit does.
func TestAConflictIsSentOnceWhileItsBaseMovesForUnrelatedReasons(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	e.startAgent(repo, "clash", "Edit the readme\n!write README.md\n!commit agent readme")
	e.commitIn(repo, "README.md", "# main's readme\n", "main rewrites the readme")
	e.Eventually(60*time.Second, "the conflict reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) == 1 })

	for i := range 3 {
		head := e.commitIn(repo, "unrelated"+itoa(i)+".txt", "news\n", "unrelated news "+itoa(i))
		e.Eventually(60*time.Second, "main's move "+itoa(i)+" is judged", func() bool {
			return strings.Contains(e.prItem(repo, "clash").Reactions["conflict"].Seen, head)
		})
	}
	require.Len(t, e.promptsWith("clash", "now conflicts with main"), 1, "the same conflict is sent once")
	it := e.prItem(repo, "clash")
	require.Empty(t, it.NeedsYou)
	require.Equal(t, 1, it.Reactions["conflict"].Attempts)

	e.commitIn(repo, "README.md", "# main's readme, again\n", "main rewrites the readme again")
	e.Eventually(60*time.Second, "the new conflicting commit reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) == 2 })
	require.Contains(t, e.promptsWith("clash", "now conflicts with main")[1], "main rewrites the readme again")
}
