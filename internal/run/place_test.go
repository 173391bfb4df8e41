package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePlacesTasksOnHosts(t *testing.T) {
	p, err := Parse("p.toml", []byte(`[run]
labels = ["gpu"]

[[task]]
id = "a"
task = "x"

[[task]]
id = "b"
task = "y"
host = "box"

[[task]]
id = "c"
task = "z"
labels = ["big", "fast"]
`))
	require.NoError(t, err)
	place := func(id string) (string, []string) { pt, _ := p.TaskByID(id); return p.PlaceOf(pt) }
	h, l := place("a")
	require.Equal(t, "", h)
	require.Equal(t, []string{"gpu"}, l, "the run's default")
	h, l = place("b")
	require.Equal(t, "box", h)
	require.Empty(t, l, "a named host: the run's labels do not apply")
	h, l = place("c")
	require.Equal(t, "", h)
	require.Equal(t, []string{"big", "fast"}, l)

	p, err = Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"x\"\n"))
	require.NoError(t, err)
	h, l = p.PlaceOf(&p.Tasks[0])
	require.Equal(t, "", h)
	require.Empty(t, l, "here by default")
}

func TestParseRefusesBadPlacements(t *testing.T) {
	for plan, want := range map[string]string{
		"[[task]]\nid = \"a\"\ntask = \"x\"\nhost = \"box\"\nlabels = [\"gpu\"]\n":        "give host or labels, not both",
		"[run]\nhost = \"box\"\nlabels = [\"gpu\"]\n[[task]]\nid = \"a\"\ntask = \"x\"\n": "give host or labels, not both",
		"[[task]]\nid = \"a\"\ntask = \"x\"\nhost = \"my box\"\n":                         "must be a name",
		"[[task]]\nid = \"a\"\ntask = \"x\"\nlabels = []\n":                               "is empty",
		"[[task]]\nid = \"a\"\ntask = \"x\"\nlabels = [\"a b\"]\n":                        "must be names",
		"[[task]]\nid = \"a\"\ntask = \"x\"\nlabels = \"gpu\"\n":                          "must be a list of strings",
	} {
		_, err := Parse("p.toml", []byte(plan))
		require.Error(t, err, plan)
		require.Contains(t, err.Error(), want, plan)
	}
}
