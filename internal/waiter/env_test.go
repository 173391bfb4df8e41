package waiter

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// owt-wait runs with one P and no collector where the user set neither
// (its own memory, 0.64 MiB a pane, was most of an agent's cost: issue
// 36), and hands the environment on as it was: the agent's shell that
// follows never sees the settings.
func TestOwtWaitRunsLeanAndHandsTheEnvironmentOnAsItWas(t *testing.T) {
	user := []string{"HOME=/h", "PATH=/bin"}
	env := Env(user)
	require.Subset(t, env, []string{"GOMAXPROCS=1", "GOGC=off"})
	require.Equal(t, user, HandedOn(env))

	own := []string{"HOME=/h", "GOGC=200"}
	env = Env(own)
	require.Contains(t, env, "GOMAXPROCS=1")
	require.Contains(t, env, "GOGC=200", "the user's own setting stands")
	require.NotContains(t, env, "GOGC=off")
	require.Equal(t, own, HandedOn(env), "and is handed on")

	both := []string{"GOMAXPROCS=4", "GOGC=50"}
	require.Equal(t, both, Env(both))
	require.Equal(t, both, HandedOn(both))
	require.Equal(t, Env(user), Env(Env(user)), "once")
}
