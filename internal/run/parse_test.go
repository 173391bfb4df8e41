package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A seed tasks.toml's auto_ship lands a run's done work in its base.
func TestASeedTasksTomlRunLandsInItsBase(t *testing.T) {
	seed := `
[batch]
auto_ship = true

[[tasks]]
id = "schema"
description = "Design the schema"
`
	p, err := Parse("tasks.toml", []byte(seed))
	require.NoError(t, err)
	r := NewRun("tasks", "/repo", "main", p, time.Unix(0, 0))
	require.Equal(t, "main", r.Into)
}
