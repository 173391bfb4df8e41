package hosts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/buildinfo"
	"github.com/owt-tmux/owt/internal/ssh"
)

// The oldest tmux and git owt drives on a host.
var (
	MinTmux = [2]int{3, 2}
	MinGit  = [2]int{2, 38}
)

// Probe is what a host has, read in one ssh call.
type Probe struct {
	OS, Arch string // Go's names (linux, amd64), from uname -sm
	Uname    string // uname -sm as it said
	Tmux     string // "3.3a"; "" when missing
	Git      string // "2.39.5"; "" when missing
	Owt      string // owt --version's version; "" when missing
	// OwtSum is the sha256 of the owt found there ("" when it could not
	// be read): a "dev" build is the same owt only when it is this one.
	OwtSum string
	// Machine names the machine and account owt runs as there (its
	// machine id, else its host name, and $HOME): two host names with
	// the same one are one place, whose agents both would show.
	Machine string
	// Latency is one round trip over the shared connection.
	Latency time.Duration
}

// probeScript prints one line each: uname -sm, tmux -V, git --version,
// owt --version ("none" for a missing program), owt's sum, the machine
// and account (Probe.Machine). A fixed script: no word
// of it comes from anyone.
const probeScript = `uname -sm
tmux -V 2>/dev/null || echo none
git --version 2>/dev/null || echo none
owt --version 2>/dev/null || echo none
o=$(command -v owt 2>/dev/null) && { sha256sum "$o" 2>/dev/null || shasum -a 256 "$o" 2>/dev/null; } || echo none
printf '%s %s\n' "$(cat /etc/machine-id 2>/dev/null || hostname 2>/dev/null)" "$HOME"`

// Probe reads what the host has.
func (h *Host) Probe(ctx context.Context) (Probe, error) {
	out, err := h.SSH.Output(ctx, ssh.Remote{Argv: []string{"sh", "-c", probeScript}})
	if err != nil {
		return Probe{}, err
	}
	p := parseProbe(string(out))
	start := time.Now()
	if _, err := h.SSH.Output(ctx, ssh.Remote{Argv: []string{"true"}}); err != nil {
		return p, err
	}
	p.Latency = time.Since(start)
	return p, nil
}

func parseProbe(out string) Probe {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(lines) < 6 {
		lines = append(lines, "none")
	}
	var p Probe
	p.Uname = strings.TrimSpace(lines[0])
	p.OS, p.Arch = goPlatform(p.Uname)
	p.Tmux = version(lines[1], "tmux ")
	p.Git = version(lines[2], "git version ")
	p.Owt = version(lines[3], "owt version ")
	if f := strings.Fields(lines[4]); len(f) > 0 && len(f[0]) == 64 {
		p.OwtSum = f[0]
	}
	if m := strings.TrimSpace(lines[5]); m != "none" && len(strings.Fields(m)) >= 2 {
		p.Machine = m
	}
	return p
}

func version(line, prefix string) string {
	line = strings.TrimSpace(line)
	if line == "none" || !strings.HasPrefix(line, prefix) {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(line, prefix))
}

// goPlatform turns uname -sm into Go's GOOS and GOARCH.
func goPlatform(uname string) (string, string) {
	f := strings.Fields(uname)
	if len(f) != 2 {
		return "", ""
	}
	goos := strings.ToLower(f[0])
	arch := map[string]string{"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
		"i686": "386", "i386": "386", "armv7l": "arm", "riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x"}[f[1]]
	return goos, arch
}

var leadingVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+)\.(\d+)`) })

// atLeast says whether version v ("3.3a", "next-3.4", "2.39.5") is min or newer.
func atLeast(v string, min [2]int) bool {
	m := leadingVersion().FindStringSubmatch(v)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > min[0] || major == min[0] && minor >= min[1]
}

// Lacks says what the host lacks for owt besides owt itself: a missing
// or too old tmux or git, each as a line a user can act on.
func (p Probe) Lacks() []string {
	var out []string
	switch {
	case p.Tmux == "":
		out = append(out, fmt.Sprintf("tmux is not installed (owt needs %d.%d or newer)", MinTmux[0], MinTmux[1]))
	case !atLeast(p.Tmux, MinTmux):
		out = append(out, fmt.Sprintf("tmux %s is older than %d.%d", p.Tmux, MinTmux[0], MinTmux[1]))
	}
	switch {
	case p.Git == "":
		out = append(out, fmt.Sprintf("git is not installed (owt needs %d.%d or newer)", MinGit[0], MinGit[1]))
	case !atLeast(p.Git, MinGit):
		out = append(out, fmt.Sprintf("git %s is older than %d.%d", p.Git, MinGit[0], MinGit[1]))
	}
	return out
}

// OwtMatches says whether the host's owt is this owt: the same version,
// and for a build that is not a release (buildinfo.IsDev: two of those are
// the same owt only byte for byte) the same binary (localSum, SelfSum's).
func (p Probe) OwtMatches(local, localSum string) bool {
	if p.Owt == "" || p.Owt != local {
		return false
	}
	return !buildinfo.IsDev(local) || localSum != "" && p.OwtSum == localSum
}

// SelfSum is the sha256 of this owt's executable, "" when unreadable.
func SelfSum() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(self)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CanTake says whether this owt's binaries run on the host (same OS and
// architecture), so owt host add can copy them there.
func (p Probe) CanTake() bool { return p.OS == runtime.GOOS && p.Arch == runtime.GOARCH }

// Binaries are the programs owt host add copies: owt and the four beside
// it (make install puts them together). Missing ones are left out.
func Binaries() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this owt: %w", err)
	}
	if s, err := filepath.EvalSymlinks(self); err == nil {
		self = s
	}
	out := []string{self}
	for _, n := range []string{"owt-popup", "owt-mcp"} {
		p := filepath.Join(filepath.Dir(self), n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out, nil
}

// installScript writes stdin to ~/.local/bin/$1 through a temporary file
// and a rename, so a running owt there is never half-replaced. $1 is one
// of owt's own program names, quoted on the line like every word.
const installScript = `set -e
d="$HOME/.local/bin"
mkdir -p "$d"
t="$d/.$1.owt-new.$$"
trap 'rm -f "$t"' EXIT
cat > "$t"
chmod 755 "$t"
mv -f "$t" "$d/$1"
trap - EXIT`

// programNames are the names Install writes on a host.
var programNames = map[string]bool{"owt": true, "owt-popup": true, "owt-mcp": true}

// Install copies each of files (owt's binaries) to ~/.local/bin on the
// host, over stdin, under its own base name.
func (h *Host) Install(ctx context.Context, files []string, progress io.Writer) error {
	for _, f := range files {
		name := filepath.Base(f)
		if !programNames[name] {
			return fmt.Errorf("install %s: owt copies only owt, owt-popup and owt-mcp", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("install %s: %w", name, err)
		}
		if progress != nil {
			fmt.Fprintf(progress, "copying %s to %s:~/.local/bin/%s (%d MB)\n", name, h.Name, name, len(data)>>20)
		}
		err = h.SSH.Run(ctx, ssh.Remote{Argv: []string{"sh", "-c", installScript, "owt-install", name}, Stdin: bytes.NewReader(data)})
		if err != nil {
			return fmt.Errorf("install %s on %s: %w", name, h.Name, err)
		}
	}
	return nil
}

// SameMachine are the names of others (configured hosts) that probe as
// the machine and account machine is (Probe.Machine), each asked at
// once; one that does not answer is not among them.
func SameMachine(ctx context.Context, others []*Host, machine string) []string {
	if machine == "" {
		return nil
	}
	same := make([]bool, len(others))
	var wg sync.WaitGroup
	for i, o := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := o.Probe(ctx)
			same[i] = err == nil && p.Machine == machine
		}()
	}
	wg.Wait()
	var out []string
	for i, o := range others {
		if same[i] {
			out = append(out, o.Name)
		}
	}
	return out
}
