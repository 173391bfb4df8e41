package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func classifierFor(t *testing.T, tool string) *Classifier {
	t.Helper()
	for _, p := range Builtins() {
		if p.Name == tool {
			cl, err := NewClassifier(p)
			require.NoError(t, err)
			return cl
		}
	}
	t.Fatalf("no built-in tool %s", tool)
	return nil
}

func screenFile(t *testing.T, tool, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, tool, name))
	require.NoError(t, err)
	return string(b)
}

// TestExplainNamesTheRuleAndItsLines: every reading of the corpus says
// which rule decided and shows the rows it matched; Explain never
// disagrees with Read.
func TestExplainNamesTheRuleAndItsLines(t *testing.T) {
	cl := classifierFor(t, "claude")
	r := cl.Explain(screenFile(t, "claude", "waiting-bash.txt"))
	require.Equal(t, ClassWaiting, r.Class)
	require.Equal(t, "claude/permission", r.Rule)
	require.Equal(t, "waiting: permission prompt (claude)", r.RuleText)
	require.NotEmpty(t, r.Lines)
	require.LessOrEqual(t, len(r.Lines), maxEvidence)
	require.Contains(t, strings.Join(r.Lines, "\n"), "Do you want to proceed?")

	r = cl.Explain(screenFile(t, "claude", "waiting-trust-folder-v2.1.330.txt"))
	require.Equal(t, "claude/trust", r.Rule)

	r = cl.Explain(screenFile(t, "claude", "working-thinking.txt"))
	require.Equal(t, ClassWorking, r.Class)
	require.Equal(t, "claude/busy", r.Rule)
	require.Len(t, r.Lines, 1)
	require.Contains(t, r.Lines[0], "esc to interrupt")

	r = cl.Explain(screenFile(t, "claude", "idle-interrupted.txt"))
	require.Equal(t, ClassIdle, r.Class)
	require.Equal(t, "claude/prompt", r.Rule)
	require.Equal(t, "idle: input prompt (claude)", r.RuleText)
	require.Contains(t, InterruptRow(screenFile(t, "claude", "idle-interrupted-what-instead-v2.1.330.txt")), "Interrupted · What should Claude do instead?")
	require.Empty(t, InterruptRow(screenFile(t, "claude", "idle-done.txt")))

	// A dialog only the generic patterns know is said so.
	generic := classifierFor(t, "pi")
	r = generic.Explain("Pick one:\n❯ 1. Apples\n  2. Pears\n")
	require.Equal(t, ClassWaiting, r.Class)
	require.Equal(t, "generic/permission", r.Rule)
	require.Equal(t, []string{"❯ 1. Apples"}, r.Lines)

	require.Equal(t, Reading{}, cl.Explain("$ ls\n"))

	tools, err := os.ReadDir(corpus)
	require.NoError(t, err)
	for _, dir := range tools {
		cl := classifierFor(t, dir.Name())
		files, err := filepath.Glob(filepath.Join(corpus, dir.Name(), "*.txt"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			class, reason := cl.Read(string(b))
			r := cl.Explain(string(b))
			require.Equal(t, class, r.Class, f)
			require.Equal(t, reason, r.Reason, f)
			if class != ClassUnknown {
				require.True(t, strings.HasSuffix(r.RuleText, ")"), f)
				require.NotEmpty(t, r.Lines, "%s: %s matched no row", f, r.Rule)
			}
		}
	}
}
