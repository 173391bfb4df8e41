package workspace

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSomeNamesTheFirstAndCountsTheRest(t *testing.T) {
	require.Equal(t, "", Some(nil, 5))
	require.Equal(t, "a, b", Some([]string{"a", "b"}, 2))
	require.Equal(t, "a, b and 3 more", Some([]string{"a", "b", "c", "d", "e"}, 2))
}
