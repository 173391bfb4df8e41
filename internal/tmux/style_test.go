package tmux

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestChipSetsBothColours(t *testing.T) {
	require.Equal(t, "#[fg=black,bg=green] ● 2 #[default]", Chip("green", "● 2", false))
	require.Equal(t, "#[fg=white,bg=red,bold] x##y #[default]", Chip("red", "x#y", true))
}
