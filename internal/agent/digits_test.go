package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlindToDigits(t *testing.T) {
	for pattern, want := range map[string]bool{
		`esc to interrupt`: true, `\d+\.`: true, `[0-9]+s`: true, `\w+`: true, `[^a-z]`: true, `\S`: true,
		`x{2,3}`: true, `(?i)enter`: true, `.`: true,
		`[0-5]`: false, `1\. Yes`: false, `[5-9a]`: false, `v2`: false, `(?i)x[^3]`: false,
	} {
		require.Equal(t, want, blindToDigits(pattern), pattern)
	}
	require.Equal(t, "(00s · ↑ 0.0k tokens)", zeroDigits("(12s · ↑ 3.4k tokens)"))
	require.Equal(t, "no digits", zeroDigits("no digits"))
}

// Every row of every screen of the corpus gets the same marks from a
// classifier that remembers rows with their digits zeroed as from one
// that reads each row as it is, and every built-in profile is blind to
// digits (so a busy agent's ticking timer costs no regexp).
func TestDigitBlindRowsReadAsTheyAre(t *testing.T) {
	for _, p := range Builtins() {
		blind, err := NewClassifier(p)
		require.NoError(t, err)
		require.True(t, blind.digitBlind, "%s's patterns tell digits apart", p.Name)
		plain, err := NewClassifier(p)
		require.NoError(t, err)
		plain.digitBlind = false
		files, err := filepath.Glob(filepath.Join(corpus, p.Name, "*.txt"))
		require.NoError(t, err)
		rows := []string{"✻ Working… (12s · ↑ 3.4k tokens · esc to interrupt)", "❯ 1. Yes", "  2. No, and tell Claude what to do differently (esc)"}
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			rows = append(rows, strings.Split(string(data), "\n")...)
		}
		for _, row := range rows {
			require.Equal(t, plain.flagsOf(row), blind.flagsOf(row), "%s: %q", p.Name, row)
		}
	}

	custom, err := NewClassifier(Profile{Name: "x", Working: `step [0-4] of`})
	require.NoError(t, err)
	require.False(t, custom.digitBlind, "a pattern that tells 3 from 7 keeps rows as they are")
	require.NotEqual(t, custom.flagsOf("step 3 of 9"), custom.flagsOf("step 7 of 9"))
}
