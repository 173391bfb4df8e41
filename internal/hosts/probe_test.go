package hosts

import (
	"runtime"
	"strings"
	"testing"
)

func TestParseProbe(t *testing.T) {
	p := parseProbe("Linux x86_64\ntmux 3.3a\ngit version 2.39.5\nowt version v1.2.3\n")
	if p.OS != "linux" || p.Arch != "amd64" || p.Tmux != "3.3a" || p.Git != "2.39.5" || p.Owt != "v1.2.3" {
		t.Fatalf("%+v", p)
	}
	if len(p.Lacks()) != 0 {
		t.Errorf("lacks %v", p.Lacks())
	}
	p = parseProbe("Darwin arm64\nnone\ngit version 2.30.1\nnone\n")
	if p.OS != "darwin" || p.Arch != "arm64" || p.Tmux != "" || p.Owt != "" {
		t.Fatalf("%+v", p)
	}
	if l := p.Lacks(); len(l) != 2 {
		t.Errorf("want tmux missing and git too old, got %v", l)
	}
	if p.OwtMatches("", "") {
		t.Error("a missing owt matched an empty version")
	}
	sum := strings.Repeat("ab", 32)
	dev := parseProbe("Linux x86_64\ntmux 3.3a\ngit version 2.39.5\nowt version v0.0.0-dev (commit 0123456789ab)\n" + sum + "  /home/me/.local/bin/owt\n")
	if dev.OwtSum != sum || !dev.OwtMatches("v0.0.0-dev (commit 0123456789ab)", sum) {
		t.Errorf("the same dev build does not match: %+v", dev)
	}
	if dev.OwtMatches("v0.0.0-dev (commit 0123456789ab)", strings.Repeat("cd", 32)) || dev.OwtMatches("v0.0.0-dev (commit 0123456789ab)", "") {
		t.Error("another dev build matched")
	}
	if !(Probe{Owt: "v1.2.0"}).OwtMatches("v1.2.0", "") || (Probe{Owt: "v1.2.0"}).OwtMatches("v1.3.0", "") {
		t.Error("released versions compare by version")
	}
	m := parseProbe("Linux x86_64\ntmux 3.3a\ngit version 2.39.5\nnone\nnone\n0123abcd /home/me\n")
	if m.Machine != "0123abcd /home/me" {
		t.Errorf("machine %q", m.Machine)
	}
	// Short output (a shell that died half-way) reads as missing, not as a crash.
	p = parseProbe("Linux aarch64\n")
	if p.Arch != "arm64" || p.Tmux != "" || p.Git != "" {
		t.Fatalf("%+v", p)
	}
}

func TestAtLeast(t *testing.T) {
	for v, want := range map[string]bool{
		"3.2": true, "3.3a": true, "next-3.4": true, "3.1c": false, "2.9": false, "4.0": true, "": false, "master": false,
	} {
		if got := atLeast(v, MinTmux); got != want {
			t.Errorf("atLeast(%q, 3.2) = %v", v, got)
		}
	}
	for v, want := range map[string]bool{"2.38.0": true, "2.37.9": false, "2.39.5": true, "3.0": true} {
		if got := atLeast(v, MinGit); got != want {
			t.Errorf("atLeast(%q, 2.38) = %v", v, got)
		}
	}
}

func TestCanTakeOnlyTheSamePlatform(t *testing.T) {
	if !(Probe{OS: runtime.GOOS, Arch: runtime.GOARCH}).CanTake() {
		t.Error("the same platform cannot take this owt")
	}
	if (Probe{OS: "plan9", Arch: runtime.GOARCH}).CanTake() || (Probe{}).CanTake() {
		t.Error("another platform (or an unknown one) takes this owt")
	}
}

func TestSameRepo(t *testing.T) {
	same := [][2]string{
		{"https://github.com/acme/app.git", "git@github.com:acme/app"},
		{"ssh://git@github.com/acme/app", "https://github.com/acme/app/"},
		{"/srv/git/app.git", "/srv/git/app"},
	}
	for _, p := range same {
		if sameRepo(p[0]) != sameRepo(p[1]) {
			t.Errorf("%s and %s name the same repository: %q vs %q", p[0], p[1], sameRepo(p[0]), sameRepo(p[1]))
		}
	}
	if sameRepo("https://github.com/acme/app") == sameRepo("https://github.com/acme/api") {
		t.Error("two repositories read as one")
	}
}
