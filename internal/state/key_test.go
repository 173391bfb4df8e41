package state

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A key is the repository and the name apart: the same name in two
// repositories is two agents, and its spelling is the one lock names and
// cache files have always used.
func TestKeyIsRepositoryAndName(t *testing.T) {
	a := (&Record{Repo: "/r/a", Name: "fix"}).Key()
	b := (&Record{Repo: "/r/b", Name: "fix"}).Key()
	require.NotEqual(t, a, b)
	require.Equal(t, Key{Repo: "/r/a", Name: "fix"}, a)
	require.Equal(t, "/r/a\x00fix", a.String())
	seen := map[Key]bool{a: true}
	require.True(t, seen[Key{"/r/a", "fix"}])
	require.False(t, seen[b])
}

// A map by Key is written as the map by the key's string it replaces,
// and read back.
func TestAMapByKeyIsTheJSONOfTheMapByItsString(t *testing.T) {
	byKey, err := json.Marshal(map[Key]int{{"/r/a", "fix"}: 1, {"/r/b", "x"}: 2})
	require.NoError(t, err)
	byString, err := json.Marshal(map[string]int{"/r/a\x00fix": 1, "/r/b\x00x": 2})
	require.NoError(t, err)
	require.JSONEq(t, string(byString), string(byKey))
	require.Equal(t, string(byString), string(byKey))

	var back map[Key]int
	require.NoError(t, json.Unmarshal(byString, &back))
	require.Equal(t, map[Key]int{{"/r/a", "fix"}: 1, {"/r/b", "x"}: 2}, back)
	require.Error(t, json.Unmarshal([]byte(`{"no nul":1}`), &back))
}
