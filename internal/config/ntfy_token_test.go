package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A real ntfy access token (tk_ and 29 letters and digits) is also a
// valid variable name: put in token_env by mistake, it is refused and not
// repeated, where it was taken as a name and said in every error (owt
// notify test, owt.log): "the token's environment variable is not set
// (tk_…)".
func TestNtfyTokenInTokenEnvIsRefused(t *testing.T) {
	const token = "tk_abcdefghijklmnopqrstuvwxyz123"
	root := setup(t, "[notify.ntfy]\ntopic = \"owt-me\"\ntoken_env = \""+token+"\"\n", "")
	_, err := Load(root)
	require.ErrorContains(t, err, "notify.ntfy.token_env")
	require.NotContains(t, err.Error(), token)
}
