package daemon

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
)

func TestRingReachesTheBellAndNothingElseDoes(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	if err := Ring(socket, "/r", "a"); err == nil {
		t.Fatal("a ring with no bell must fail, so the hook publishes another way")
	}
	b, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	done := make(chan struct{})
	go func() { b.Serve(func(repo, name string) { got <- repo + "|" + name }); close(done) }()
	if err := Ring(socket, "/work/app", "api"); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != "/work/app|api" {
		t.Fatalf("rang %q", r)
	}
	// Not one verb and two fields, or a relative repo: dropped.
	if err := Ring(socket, "rel", "x"); err != nil {
		t.Fatal(err)
	}
	if err := Ring(socket, "/a\x00b", "x"); err == nil {
		t.Fatal("a NUL in a field must be refused")
	}
	if err := Ring(socket, "/ok", "b"); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != "/ok|b" {
		t.Fatalf("after a dropped ring, rang %q", r)
	}
	b.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	if _, err := os.Stat(b.Path()); !os.IsNotExist(err) {
		t.Fatalf("Close leaves %s: %v", b.Path(), err)
	}
}

func TestRingOfADeadMonitorFails(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	b, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	// A monitor killed -9 leaves its socket file: a ring must not count.
	_ = b.conn.Close()
	if _, err := os.Stat(b.Path()); err != nil {
		t.Fatal(err)
	}
	if err := Ring(socket, "/r", "a"); err == nil {
		t.Fatal("a ring to a socket no one reads must fail")
	}
	// The next monitor takes the path over.
	b2, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if err := Ring(socket, "/r", "a"); err != nil {
		t.Fatal(err)
	}
}

func TestBellBesideALongSocketPathMovesToTheRuntimeDir(t *testing.T) {
	// A short runtime dir, as /run/user/UID is: t.TempDir's name (this
	// test's) left too little of a socket path's 108 bytes under a TMPDIR
	// longer than /tmp.
	run, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	xdg.Reload() // the XDG directories are read once, at start
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "default")
	b, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.Path(), run) {
		t.Fatalf("the bell of a socket path too long to bind beside it is in the runtime dir %s, not at %s", run, b.Path())
	}
	got := make(chan string, 1)
	go b.Serve(func(repo, name string) { got <- name })
	if err := Ring(socket, "/r", "a"); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != "a" {
		t.Fatalf("rang %q", n)
	}
}

// With both places too long for a socket, the error says so (it once
// said "%!w(<nil>)": no place was tried, so no error was kept).
func TestNoBellWhereEveryPathIsTooLongSaysWhy(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("r", 100))
	t.Setenv("XDG_RUNTIME_DIR", long)
	xdg.Reload() // the XDG directories are read once, at start
	t.Cleanup(xdg.Reload)
	_, err := ListenBell(filepath.Join(t.TempDir(), strings.Repeat("d", 100), "default"))
	if err == nil || !strings.Contains(err.Error(), "too long for a socket") || strings.Contains(err.Error(), "%!") {
		t.Fatalf("ListenBell with no place short enough = %v, want an error saying the paths are too long", err)
	}
}

// Beside a socket in a folder others may write to (tmux -S /tmp/x), a
// stranger's socket under the bell's name takes no ring, and the monitor
// binds in owt's runtime dir instead.
func TestNoBellInAFolderOthersMayWriteTo(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	xdg.Reload() // the XDG directories are read once, at start
	public := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(public, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(public, 0o777); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(public, "x")
	stranger, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: socket + ".owt-monitor.sock", Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	if err := Ring(socket, "/r", "a"); err == nil {
		t.Fatal("a ring must not go to a socket in a folder others may write to")
	}
	b, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(b.Path(), run) {
		t.Fatalf("the bell is at %s, not in the runtime dir %s", b.Path(), run)
	}
	got := make(chan string, 1)
	go b.Serve(func(repo, name string) { got <- name })
	if err := Ring(socket, "/r", "a"); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != "a" {
		t.Fatalf("rang %q", n)
	}
	_ = stranger.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := stranger.ReadFrom(make([]byte, 64)); err == nil {
		t.Fatalf("the stranger got %d bytes", n)
	}
}

// Rings that wait while the monitor is busy are taken together: each
// record is published once, in the order first rung.
func TestRingsWaitingTogetherPublishEachRecordOnce(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "default")
	b, err := ListenBell(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, name := range []string{"a", "b", "a", "a", "b", "c"} {
		if err := Ring(socket, "/r", name); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 10)
	go b.Serve(func(repo, name string) { got <- name })
	var names []string
	for len(names) < 3 {
		select {
		case n := <-got:
			names = append(names, n)
		case <-time.After(5 * time.Second):
			t.Fatalf("published %v", names)
		}
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("published %v, want a,b,c once each", names)
	}
	select {
	case n := <-got:
		t.Fatalf("published %s again", n)
	case <-time.After(100 * time.Millisecond):
	}
}
