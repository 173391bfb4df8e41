package ssh

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
)

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]Address{
		"box":                {Host: "box"},
		"me@box":             {User: "me", Host: "box"},
		"me@box:2222":        {User: "me", Host: "box", Port: 2222},
		"127.0.0.1:22":       {Host: "127.0.0.1", Port: 22},
		"[::1]:2222":         {Host: "::1", Port: 2222},
		"::1":                {Host: "::1"},
		"me@gpu.example.com": {User: "me", Host: "gpu.example.com"},
	} {
		got, err := ParseAddress(in)
		if err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseAddress(got.String()); err != nil || again != got {
			t.Errorf("%q: String() %q does not parse back: %+v %v", in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "@box", "me@", "box:0", "box:99999", "box:x", "-oProxyCommand=x", "me@-box",
		"-l@box", "box;touch x", "bo x", "box\n", "$(x)", "`x`@box", "a'b"} {
		if a, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) = %+v, want an error", bad, a)
		}
	}
}

// The line ssh hands the remote shell runs exactly the program and
// arguments owt chose, in the directory it chose, whatever they hold.
func TestRemoteLineRunsExactlyTheArgv(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	home := t.TempDir()
	dir := filepath.Join(home, "it's $(touch PWNED) dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, ".local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// A program in ~/.local/bin, found through the PATH the line sets.
	if err := os.WriteFile(filepath.Join(bin, "argv"), []byte("#!/bin/sh\npwd\nprintf '%s\\0' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Remote{Dir: "~/it's $(touch PWNED) dir", Argv: append([]string{"argv"}, hostile...)}
	cmd := exec.Command(sh, "-c", r.line())
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	cmd.Dir = home
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", r.line(), err)
	}
	wd, rest, _ := strings.Cut(string(out), "\n")
	if wd != dir {
		t.Errorf("ran in %q, want %q", wd, dir)
	}
	want := strings.Join(hostile, "\x00") + "\x00"
	if rest != want {
		t.Errorf("argv came back as %q, want %q", rest, want)
	}
	for _, d := range []string{home, dir} {
		if _, err := os.Stat(filepath.Join(d, "PWNED")); err == nil {
			t.Fatal("the line ran something it was given as an argument")
		}
	}
}

// The shared connection's socket fits a unix socket path even under a
// long runtime dir, in a directory only its user can enter.
func TestControlPathIsShortAndPrivate(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	t.Setenv("XDG_RUNTIME_DIR", long)
	xdg.Reload() // the XDG directories are read once, at start
	if d := ControlDir(); strings.HasPrefix(d, long) {
		t.Errorf("ControlDir %s: under a runtime dir too long for a socket", d)
	}
	short := t.TempDir()
	c := &Client{Addr: Address{Host: "box"}, ControlDir: filepath.Join(short, "s")}
	p, err := c.controlPath()
	if err != nil {
		t.Fatal(err)
	}
	if len(p)+17 >= 104 {
		t.Errorf("control path %s too long for a socket", p)
	}
	fi, err := os.Stat(filepath.Dir(p))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode %v %v, want 0700", fi.Mode(), err)
	}
	other := &Client{Addr: Address{Host: "box", Port: 2222}, ControlDir: c.ControlDir}
	if q, _ := other.controlPath(); q == p {
		t.Error("two addresses share one control socket")
	}
	// A directory others can write is refused, not used.
	open := filepath.Join(short, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Client{Addr: c.Addr, ControlDir: open}).controlPath(); err == nil {
		t.Error("a world-writable control dir was used")
	}
}

// Every call is batch mode with keepalives and the shared connection,
// and the destination comes after "--".
func TestArgs(t *testing.T) {
	c := &Client{Addr: Address{User: "me", Host: "box", Port: 2222}, ConfigFile: "/cfg", ControlDir: t.TempDir() + "/c"}
	args, err := c.Args(Remote{Argv: []string{"owt", "list"}})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"-F /cfg", "BatchMode=yes", "ServerAliveInterval=10", "ServerAliveCountMax=3", "ControlMaster=auto", "ControlPersist=", "-p 2222", "-l me", "-T -- box "} {
		if !strings.Contains(joined, want) {
			t.Errorf("ssh args %q lack %q", joined, want)
		}
	}
	if last := args[len(args)-1]; !strings.HasSuffix(last, "exec 'owt' 'list'") {
		t.Errorf("remote line %q", last)
	}
	git, err := c.GitCommand()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(git, "'-p'") || !strings.HasPrefix(git, "'ssh' '-F' '/cfg'") {
		t.Errorf("GIT_SSH_COMMAND %s", git)
	}
	if u := c.GitURL("/srv/app"); u != "ssh://me@box:2222/srv/app" {
		t.Errorf("GitURL %s", u)
	}
}
