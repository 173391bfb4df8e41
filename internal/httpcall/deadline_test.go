package httpcall_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
)

// A server that does not answer in time is said in words, the server by
// its scheme and host: not owt-mcp's path, a signal and Go's context
// error ("owt-mcp: /usr/bin/owt-mcp: context deadline exceeded (signal:
// terminated)", what owt notify test printed); and owt-mcp's own error
// line loses its program prefix ("failed: owt: POST …").
func TestSiblingSaysASlowServerInWords(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	defer srv.Close()
	defer close(stop)
	s := sibling(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Do(ctx, httpcall.Request{Method: "POST", URL: srv.URL + "/hooks/SECRET", Timeout: 300 * time.Millisecond})
	require.Error(t, err)
	require.Contains(t, err.Error(), "POST "+srv.URL+": no answer in time")
	for _, machinery := range []string{"owt-mcp", "signal", "context deadline", "SECRET", os.Args[0]} {
		require.NotContains(t, err.Error(), machinery)
	}

	// owt-mcp's own time limit, met before owt's.
	_, err = nethttp.Client{}.Do(context.Background(), httpcall.Request{Method: "POST", URL: srv.URL + "/hooks/SECRET", Timeout: 300 * time.Millisecond})
	require.EqualError(t, err, "POST "+srv.URL+": no answer in time")
	require.ErrorIs(t, err, context.DeadlineExceeded)

	_, err = s.Do(context.Background(), httpcall.Request{Method: "POST", URL: "http://127.0.0.1:1/x", Timeout: 5 * time.Second})
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "POST http://127.0.0.1:1: "), err.Error())
}
