package state

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "login-fix", "v1.2", "x_y"} {
		require.NoError(t, ValidateName(ok), ok)
	}
	for _, bad := range []string{"", "-x", ".x", "a/b", "a b", "x.lock", "a..b", strings.Repeat("a", 65), "a:b"} {
		require.Error(t, ValidateName(bad), bad)
	}
}
