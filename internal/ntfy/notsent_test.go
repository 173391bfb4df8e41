package ntfy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/owt-tmux/owt/internal/ntfy"
)

// A token variable that is not set sends nothing: the error says so, not
// that the server refused the message (none was asked), and is as final
// as a refusal (no retries).
func TestPublishWithoutTheTokenSaysNotSent(t *testing.T) {
	s := ntfy.Server{URL: "http://127.0.0.1:1", Topic: "t", TokenEnv: "OWT_TEST_SURELY_UNSET_TOKEN"}
	err := ntfy.Publish(context.Background(), nethttp.Client{}, s, ntfy.Message{Topic: "t", Message: "m"})
	require.Error(t, err)
	require.True(t, errors.Is(err, ntfy.ErrRefused), "final: not tried again")
	require.Contains(t, err.Error(), "not sent")
	require.Contains(t, err.Error(), "OWT_TEST_SURELY_UNSET_TOKEN")
	require.NotContains(t, err.Error(), "refused")
}
