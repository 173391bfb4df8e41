package agent

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

// corpus is testdata/screens/<tool>/<class>-<what>.txt: screens written to
// look like each real tool's, the class they show named first.
const corpus = "../../testdata/screens"

// TestClassifierCorpus classifies every screen of the corpus with its
// tool's built-in profile, reports the accuracy per tool, and fails on any
// screen read wrong.
func TestClassifierCorpus(t *testing.T) {
	tools, err := os.ReadDir(corpus)
	require.NoError(t, err)
	profiles := map[string]Profile{}
	for _, p := range Builtins() {
		profiles[p.Name] = p
	}
	var total, right int
	seen := map[string]bool{}
	for _, dir := range tools {
		p, ok := profiles[dir.Name()]
		require.True(t, ok, "corpus folder %s is not a built-in tool", dir.Name())
		seen[p.Name] = true
		cl, err := NewClassifier(p)
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(corpus, dir.Name(), "*.txt"))
		require.NoError(t, err)
		sort.Strings(files)
		classes := map[Class]bool{}
		n, ok2 := 0, 0
		for _, f := range files {
			want := Class(strings.SplitN(strings.TrimSuffix(filepath.Base(f), ".txt"), "-", 2)[0])
			require.Contains(t, []Class{ClassWorking, ClassWaiting, ClassIdle}, want, "%s: name it working-…, waiting-… or idle-…", f)
			classes[want] = true
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			got := cl.Classify(string(data))
			n++
			if got == want {
				ok2++
			} else {
				t.Errorf("%s: read as %q, want %q", f, got, want)
			}
		}
		require.True(t, classes[ClassWorking] && classes[ClassIdle], "%s: the corpus needs working and idle screens", p.Name)
		t.Logf("%-13s %2d/%2d screens right", p.Name, ok2, n)
		total += n
		right += ok2
	}
	for name := range profiles {
		require.True(t, seen[name], "no corpus for built-in tool %s", name)
	}
	t.Logf("accuracy: %d/%d (%.1f%%)", right, total, 100*float64(right)/float64(total))
}

func TestClassifierIgnoresStatusBarAndOldText(t *testing.T) {
	p := Profile{Name: "x", Working: `busy now`, Waiting: `Proceed\?`, Idle: `^> $`, StatusBar: `^\[bar\]`}
	cl, err := NewClassifier(p)
	require.NoError(t, err)
	require.Equal(t, ClassIdle, cl.Classify("hello\n> \n[bar] branch busy now · Proceed?\n"), "status-bar lines are not a spinner or a question")
	require.Equal(t, ClassWorking, cl.Classify("\x1b[1mbusy now\x1b[0m\n> \n"), "escape sequences are stripped")
	old := "Proceed?\n" + strings.Repeat("line\n", liveLines) + "> \n\n\n"
	require.Equal(t, ClassIdle, cl.Classify(old), "a question scrolled out of the live part does not count")
	require.Equal(t, ClassUnknown, cl.Classify("$ ls\nREADME.md\n"))
}

func TestClassifierForConfiguredTool(t *testing.T) {
	profiles, err := Profiles(config.Config{Tools: map[string]config.Tool{
		"mytool": {Command: []string{"mytool"}, Working: `(?i)thinking`, Waiting: `Allow\? \[y/n\]`, Idle: `^mytool> $`},
	}})
	require.NoError(t, err)
	cl, err := NewClassifier(profiles["mytool"])
	require.NoError(t, err)
	require.Equal(t, ClassWorking, cl.Classify("THINKING...\nmytool> "))
	require.Equal(t, ClassWaiting, cl.Classify("rm x\nAllow? [y/n]"))
	require.Equal(t, ClassIdle, cl.Classify("done\nmytool> "))
}
