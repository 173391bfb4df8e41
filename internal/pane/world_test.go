package pane

import (
	"testing"

	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

type world = worldtest.World

func newWorld(t *testing.T) *world { return worldtest.New(t) }
