package react

import (
	"fmt"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/stretchr/testify/require"
)

func TestACIReportNamesEveryFailingCheckAndReadsOnlyTheLogsThatFit(t *testing.T) {
	var failing []forge.Check
	for i := 1; i <= 30; i++ {
		failing = append(failing, forge.Check{Name: untrusted.From(fmt.Sprintf("c%02d", i)), Workflow: untrusted.From("CI"), Link: fmt.Sprintf("https://x/actions/runs/%d/job/1", i)})
	}
	long := strings.Repeat("a line of a failed log, long enough to matter here\n", 60)
	calls := 0
	text, logs, unread := ciReport(failing, "U", func(forge.Check) (string, error) { calls++; return long, nil })
	require.NoError(t, unread)
	require.Equal(t, calls, len(logs))
	require.Less(t, calls, logsRead+1)
	require.Greater(t, calls, 0)
	require.Contains(t, text, "✗ c20 (CI)")
	require.NotContains(t, text, "✗ c21")
	require.Contains(t, text, "… and 10 more failing checks: U")
	require.Contains(t, text, fmt.Sprintf("(the logs of the other %d failing checks: U)", 30-calls))
	require.LessOrEqual(t, len(text), messageMax+200)
	require.Less(t, strings.Index(text, "✗ c20"), strings.Index(text, "The failed log of c01"), "names first")

	few, logs, _ := ciReport(failing[:2], "U", func(forge.Check) (string, error) { return "boom\n", nil })
	require.Len(t, logs, 2)
	require.NotContains(t, few, "more")
}
