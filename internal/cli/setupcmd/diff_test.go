package setupcmd

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// owt diff --stat's help says what it prints for a new file not yet
// committed, which git counts no lines for (issue 35: the text promised
// +/- counts for them, and none showed).
func TestDiffStatSaysANewFileHasNoCounts(t *testing.T) {
	var usage string
	for _, fl := range DiffCommand(&cmdutil.Factory{IO: &cmdutil.IOStreams{}}).Flags {
		if b, ok := fl.(*cli.BoolFlag); ok && b.Name == "stat" {
			usage = b.Usage
		}
	}
	require.Contains(t, usage, untrackedStat+", no counts")
}
