package httpcall_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
)

// The test binary plays owt-mcp _http when told to, so Sibling is tested
// through a real child process and pipes.
func TestMain(m *testing.M) {
	if os.Getenv("HTTPCALL_TEST_SERVE") == "1" && len(os.Args) > 1 && os.Args[len(os.Args)-1] == "_http" {
		if f := os.Getenv("HTTPCALL_TEST_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
		}
		if err := nethttp.Serve(context.Background(), nethttp.Client{}, os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString("owt: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func sibling(t *testing.T) httpcall.Sibling {
	t.Setenv("HTTPCALL_TEST_SERVE", "1")
	return httpcall.Sibling{Path: os.Args[0]}
}

// A request made through owt-mcp reaches the server as described: its
// method, headers, body and the token read from the environment
// variable it names; the answer comes back whole.
func TestSiblingDoesTheRequest(t *testing.T) {
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":"x1"}`))
	}))
	defer srv.Close()
	t.Setenv("OWT_TEST_TOKEN", "tk_secret")
	resp, err := sibling(t).Do(context.Background(), httpcall.Request{
		Method: "POST", URL: srv.URL + "/", Header: map[string]string{"Content-Type": "application/json"},
		BearerEnv: "OWT_TEST_TOKEN", Body: []byte(`{"topic":"t"}`), Timeout: 5 * time.Second,
	})
	require.NoError(t, err)
	require.Equal(t, 201, resp.Status)
	require.Equal(t, `{"id":"x1"}`, string(resp.Body))
	require.Equal(t, "POST", got.Method)
	require.Equal(t, "Bearer tk_secret", got.Header.Get("Authorization"))
	require.Equal(t, "application/json", got.Header.Get("Content-Type"))
	require.Equal(t, `{"topic":"t"}`, string(body))
}

// A failed request's error names the server by scheme and host only:
// no user:password, no path (a webhook's secret), no token.
func TestErrorsCarryNoSecret(t *testing.T) {
	t.Setenv("OWT_TEST_TOKEN", "tk_secret")
	for name, d := range map[string]httpcall.Doer{"sibling": sibling(t), "nethttp": nethttp.Client{}} {
		_, err := d.Do(context.Background(), httpcall.Request{Method: "POST",
			URL: "http://user:pw@127.0.0.1:1/hooks/SECRETPATH?key=SECRETQ", BearerEnv: "OWT_TEST_TOKEN", Timeout: 5 * time.Second})
		require.Error(t, err, name)
		for _, secret := range []string{"pw", "SECRETPATH", "SECRETQ", "tk_secret"} {
			require.NotContains(t, err.Error(), secret, name)
		}
		require.Contains(t, err.Error(), "http://127.0.0.1:1", name)
	}
	_, err := nethttp.Client{}.Do(context.Background(), httpcall.Request{URL: "http://127.0.0.1:1/", BearerEnv: "OWT_TEST_UNSET_TOKEN"})
	require.ErrorIs(t, err, httpcall.ErrNoBearer)
	require.Contains(t, err.Error(), "OWT_TEST_UNSET_TOKEN", "the variable's name, not its value, is said")
}

// A stream hands each line as it arrives, before the body ends, and
// stops when told.
func TestSiblingStreamsLines(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("{\"event\":\"open\"}\n"))
		w.(http.Flusher).Flush()
		<-release
		_, _ = w.Write([]byte("{\"event\":\"message\",\"message\":\"a\"}\n{\"event\":\"message\",\"message\":\"b\"}\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	defer close(release)
	var lines []string
	err := sibling(t).Stream(context.Background(), httpcall.Request{URL: srv.URL + "/t/json", Timeout: 5 * time.Second}, func(l []byte) bool {
		lines = append(lines, string(l))
		if len(lines) == 1 {
			release <- struct{}{} // the first line came before the rest was written
		}
		return len(lines) < 3
	})
	require.NoError(t, err)
	require.Equal(t, []string{`{"event":"open"}`, `{"event":"message","message":"a"}`, `{"event":"message","message":"b"}`}, lines)
}

// A stream the server refuses is an error that says the status.
func TestStreamRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden topic", 403)
	}))
	defer srv.Close()
	for name, d := range map[string]httpcall.Doer{"sibling": sibling(t), "nethttp": nethttp.Client{}} {
		err := d.Stream(context.Background(), httpcall.Request{URL: srv.URL + "/t/json"}, func([]byte) bool { return true })
		require.Error(t, err, name)
		require.True(t, strings.Contains(err.Error(), "403"), "%s: %v", name, err)
	}
}
