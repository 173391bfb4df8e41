package agent

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

func TestReadOnlyArgv(t *testing.T) {
	ps, err := Profiles(config.Config{Tools: map[string]config.Tool{"claude": {Command: []string{"claude", "--verbose"}}}})
	require.NoError(t, err)
	got, err := ps["claude"].ReadOnlyArgv("review")
	require.NoError(t, err)
	require.Equal(t, []string{"claude", "--verbose", "--permission-mode", "plan", "review"}, got, "kept over a [tools.claude] table")
	got, err = ps["codex"].ReadOnlyArgv("")
	require.NoError(t, err)
	require.Equal(t, []string{"codex", "--sandbox", "read-only"}, got, "never the bypass flag")
	got, err = ps["gemini"].ReadOnlyArgv("x")
	require.NoError(t, err)
	require.Equal(t, []string{"gemini", "--approval-mode", "plan", "-i", "x"}, got)
	_, err = ps["opencode"].ReadOnlyArgv("")
	require.True(t, errors.Is(err, ErrNoReadOnly), "its plan agent still runs bash: refused, not pretended")
	_, err = ps["pi"].ReadOnlyArgv("x")
	require.True(t, errors.Is(err, ErrNoReadOnly))
}
