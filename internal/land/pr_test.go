package land

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestPRTitleIsPlainText(t *testing.T) {
	rec := &state.Record{Task: "\x1b[31mRED\x1b]0;title\x07 fix\nsecond line", Branch: "feat/x"}
	require.Equal(t, "RED fix", prTitle(rec))
}
