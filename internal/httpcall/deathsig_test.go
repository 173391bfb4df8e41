//go:build linux

package httpcall_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/httpcall"
)

// The parent half of TestStreamEndsWithItsParent: a process (as owt's
// monitor) that follows a stream through owt-mcp until it is killed.
func TestHelperStreamParent(t *testing.T) {
	if os.Getenv("HTTPCALL_TEST_PARENT") != "1" {
		t.Skip("the helper of TestStreamEndsWithItsParent")
	}
	t.Setenv("HTTPCALL_TEST_SERVE", "1")
	_ = httpcall.Sibling{Path: os.Args[0]}.Stream(context.Background(),
		httpcall.Request{URL: os.Getenv("HTTPCALL_TEST_URL"), Timeout: 5 * time.Second}, func([]byte) bool { return true })
}

// A monitor killed -9 while it follows a stream (ntfy's reply topic)
// takes the stream's owt-mcp with it, at once: before, it lived on until
// its next write to the dead pipe failed (ntfy's keepalive, ~45 s).
func TestStreamEndsWithItsParent(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("{\"event\":\"open\"}\n"))
		w.(http.Flusher).Flush()
		<-stop // no keepalive: nothing more is written
	}))
	defer srv.Close()
	defer close(stop)
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperStreamParent$")
	parent.Env = append(os.Environ(), "HTTPCALL_TEST_PARENT=1", "HTTPCALL_TEST_URL="+srv.URL, "HTTPCALL_TEST_PIDFILE="+pidFile)
	require.NoError(t, parent.Start())
	var child int
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(string(b))
		return child > 0
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, parent.Process.Kill())
	_ = parent.Wait()
	require.Eventually(t, func() bool { return !alive(child) }, 3*time.Second, 20*time.Millisecond,
		"owt-mcp %d outlived its parent", child)
}

// alive: pid runs (a zombie no reaper took counts as ended).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
