package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A template is tried on a repository without peers or detected commands
// too: one that fails there would fail on every owt new there.
func TestATemplateThatFailsWithoutPeersOrCommandsIsAProblem(t *testing.T) {
	for prompt, want := range map[string]string{
		`Talk to {{(index .Peers 0).Name}} about {{.Task}}`: "no other agents",
		`Run {{index .Commands.Test 0}}`:                    "no test, lint or dev commands",
		`{{.Task}}{{range .Peers}} {{.Name}}{{end}}`:        "",
	} {
		ps := validateTemplates(Config{Templates: map[string]Template{"t": {Prompt: prompt}}})
		if want == "" {
			require.Empty(t, ps, prompt)
			continue
		}
		require.Len(t, ps, 1, prompt)
		require.Equal(t, "templates.t.prompt", ps[0].Key)
		require.Contains(t, ps[0].Msg, want)
	}
}
