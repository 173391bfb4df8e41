package proc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWithoutEnvDropsEveryEntryOfTheNameOnly(t *testing.T) {
	env := []string{"A=1", "OWT_X=a", "OWT_XY=b", "B=2", "OWT_X=c", "OWT_X"}
	require.Equal(t, []string{"A=1", "OWT_XY=b", "B=2", "OWT_X"}, WithoutEnv(env, "OWT_X"))
	require.Equal(t, []string{"A=1", "OWT_X=a", "OWT_XY=b", "B=2", "OWT_X=c", "OWT_X"}, env, "the list given is left as it is")
	require.Equal(t, []string{}, WithoutEnv([]string{}, "A"), "an empty environment stays empty, not this process's")

	t.Setenv("OWT_PROC_ENV_TEST", "here")
	require.NotContains(t, WithoutEnv(nil, "OWT_PROC_ENV_TEST"), "OWT_PROC_ENV_TEST=here")
	require.Contains(t, WithoutEnv(nil, "SOMETHING_ELSE"), "OWT_PROC_ENV_TEST=here", "nil is this process's environment")
}

func TestLookupEnvReadsTheLastEntryAsExecDoes(t *testing.T) {
	env := []string{"A=1", "B=", "A=2", "C"}
	v, ok := LookupEnv(env, "A")
	require.True(t, ok)
	require.Equal(t, "2", v)
	v, ok = LookupEnv(env, "B")
	require.True(t, ok, "set to empty is set")
	require.Equal(t, "", v)
	_, ok = LookupEnv(env, "C")
	require.False(t, ok, "an entry without = sets nothing")
	_, ok = LookupEnv(env, "D")
	require.False(t, ok)
	_, ok = LookupEnv([]string{}, "HOME")
	require.False(t, ok, "an empty environment is not this process's")

	t.Setenv("OWT_PROC_ENV_TEST", "here")
	v, ok = LookupEnv(nil, "OWT_PROC_ENV_TEST")
	require.True(t, ok)
	require.Equal(t, "here", v)
}

func TestExecEnvKeepsEachVariableAtItsLastEntry(t *testing.T) {
	require.Equal(t, []string{"B=2", "A=3", "C="}, ExecEnv([]string{"A=1", "B=2", "A=3", "C="}))
}
