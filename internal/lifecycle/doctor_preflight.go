package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/buildinfo"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Check is one of owt doctor's preflight checks: something owt needs of
// this machine, whether it is there, and when it is not, the fix.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Failed are the checks that did not pass.
func (d DoctorReport) Failed() []Check {
	var out []Check
	for _, c := range d.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// helperPrograms are the programs owt runs from beside itself (make
// install and the release archives put them together), else from PATH,
// with what stops working without each.
var helperPrograms = []struct{ Name, Need string }{
	{"owt-popup", "the screens behind the keys (Alt+s, Alt+c, Alt+m, Alt+d, Alt+o)"},
	{"owt-mcp", "peers and memory (owt mcp, owt memory)"},
}

// Preflight checks what owt needs of this machine: tmux and git new
// enough, owt's programs beside it, the configured tool installed, and
// this owt (not another) on the PATH panes get inside tmux, with no
// relative entry in it. Each failed check says its fix.
func (w *Worktrees) Preflight() []Check {
	checks := []Check{w.checkTmux(), checkGit()}
	for _, p := range helperPrograms {
		checks = append(checks, w.checkHelper(p.Name, p.Need))
	}
	checks = append(checks, w.checkTool())
	return append(checks, w.checkOwtOnTmuxPath()...)
}

const installTmux = "install tmux 3.2 or later (apt-get install tmux, dnf install tmux, brew install tmux) and put it on PATH"

func (w *Worktrees) checkTmux() Check {
	c := Check{Name: "tmux"}
	if err := w.Tmux.Available(); err != nil {
		c.Detail, c.Fix = "tmux is not on PATH: owt runs every agent in a tmux session", installTmux
		return c
	}
	major, minor, err := w.Tmux.Version()
	if err != nil {
		c.Detail, c.Fix = "could not tell tmux's version: "+err.Error(), installTmux
		return c
	}
	if !tmux.SupportsPopup(major, minor) {
		c.Detail = fmt.Sprintf("tmux %d.%d is older than %d.%d, which owt needs (popups for its keys, hooks it sets)", major, minor, tmux.PopupVersion[0], tmux.PopupVersion[1])
		c.Fix = installTmux
		return c
	}
	c.OK, c.Detail = true, fmt.Sprintf("tmux %d.%d", major, minor)
	return c
}

func checkGit() Check {
	c := Check{Name: "git"}
	const fix = "install git 2.38 or later and put it first on PATH"
	text, major, minor, err := git.Version()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		c.Detail, c.Fix = "git is not on PATH", fix
	case err != nil:
		c.Detail, c.Fix = "could not tell git's version: "+err.Error(), fix
	case major < git.MinMajor || major == git.MinMajor && minor < git.MinMinor:
		c.Detail = fmt.Sprintf("git %s is older than %d.%d, which owt needs (merge-tree --write-tree predicts a merge's conflicts)", text, git.MinMajor, git.MinMinor)
		c.Fix = fix
	default:
		c.OK, c.Detail = true, "git "+text
	}
	return c
}

// checkHelper finds one of owt's programs as owt itself finds it when it
// runs it (proc.Sibling): beside this owt (or its real place), else on
// PATH.
func (w *Worktrees) checkHelper(name, need string) Check {
	c := Check{Name: name}
	dir := filepath.Dir(w.Self)
	if p, err := proc.Sibling(w.Self, name); err == nil {
		c.OK, c.Detail = true, p
		if !besideSelf(w.Self, p) {
			c.Detail += " (on PATH, not beside owt)"
		}
		return c
	}
	c.Detail = fmt.Sprintf("%s is neither beside owt (in %s) nor on PATH: %s cannot run", name, dir, need)
	c.Fix = fmt.Sprintf("install owt's programs together: 'make install', 'go install ./cmd/...', or unpack every program of the release archive into %s", dir)
	return c
}

// besideSelf reports whether p is in the folder of self or of the file
// self links to.
func besideSelf(self, p string) bool {
	if self == "" {
		return false
	}
	if filepath.Dir(p) == filepath.Dir(self) {
		return true
	}
	real, err := filepath.EvalSymlinks(self)
	return err == nil && filepath.Dir(p) == filepath.Dir(real)
}

// checkTool checks the configured tool ([agent] tool; auto: the first
// installed one) is installed.
func (w *Worktrees) checkTool() Check {
	name := w.Config.Agent.Tool
	if name == "" {
		name = agent.Auto
	}
	c := Check{Name: "tool"}
	p, err := agent.Resolve(w.Tools, name)
	if err != nil {
		c.Detail = fmt.Sprintf("[agent] tool = %q: %v", name, err)
		c.Fix = "install it, or set [agent] tool in " + config.UserFile() + " (or the repository's " + config.RepoFile + ") to one that is installed; 'owt tools' lists them"
		return c
	}
	path, _ := p.LookPath()
	c.OK, c.Detail = true, p.Name+" ("+path+")"
	if name == agent.Auto {
		c.Detail += ", the first installed ([agent] tool = auto)"
	}
	return c
}

// checkOwtOnTmuxPath looks for owt on the PATH a new pane gets (the tmux
// server's global environment, else, with no server yet, this shell's)
// and checks it is this owt: the same file, or a program that says it is
// the same version. A stale copy found first (an old install in
// ~/.local/bin shadowing the plugin's) fails, as does none. Relative
// entries are not searched, a pane's folder would decide what they find:
// they fail a check of their own (tmux-path), listed only then.
func (w *Worktrees) checkOwtOnTmuxPath() []Check {
	c := Check{Name: "owt-on-path"}
	path, where := os.Getenv("PATH"), "this shell (no tmux server runs)"
	if w.Tmux.Available() != nil {
		where = "this shell (tmux is not on PATH)"
	} else if v, set, err := w.Tmux.GlobalEnv("PATH"); err == nil {
		where = "new tmux panes (tmux show-environment -g PATH)"
		if set {
			path = v
		}
	} else if !errors.Is(err, tmux.ErrNoServer) {
		where = "this shell (" + err.Error() + ")"
	}
	abs, rel := splitPath(path)
	checks := []Check{c}
	if len(rel) > 0 {
		quoted := make([]string, len(rel))
		for i, d := range rel {
			quoted[i] = strconv.Quote(d)
			if d == "" {
				quoted[i] += " (empty: the current folder)"
			}
		}
		checks = append(checks, Check{Name: "tmux-path",
			Detail: fmt.Sprintf("the PATH of %s has relative entries (%s): what a pane runs for owt, git or an agent's tool then depends on the folder it is in, an agent's worktree included",
				where, strings.Join(quoted, ", ")),
			Fix: "make every entry of PATH absolute in your shell's profile ($HOME/bin, not bin; no empty entry); then restart tmux, or run 'tmux set-environment -g PATH \"$PATH\"' from a shell that has it"})
	}
	self := w.Self
	if self == "" {
		self = "owt"
	}
	restart := "then restart tmux, or run 'tmux set-environment -g PATH \"$PATH\"' from a shell that has it"
	p := proc.LookPathIn("owt", strings.Join(abs, string(os.PathListSeparator)))
	if p == "" {
		checks[0].Detail = "owt is not on the PATH of " + where + ": 'owt …' typed in a pane says command not found"
		checks[0].Fix = notOnPathFix(self, restart)
		return checks
	}
	same, theirs := w.sameOwt(p)
	if !same {
		checks[0].Detail = fmt.Sprintf("the PATH of %s finds %s (%s), not this owt (%s, %s): 'owt …' typed in a pane runs the other one",
			where, p, theirs, self, buildinfo.String())
		checks[0].Fix = fmt.Sprintf("keep one owt: remove %s (its own 'owt uninstall', or rm), or link this one there ('ln -sf %s %s'); %s", p, self, p, restart)
		return checks
	}
	checks[0].OK, checks[0].Detail = true, p+", on the PATH of "+where
	return checks
}

// versionTimeout bounds 'owt --version' of another owt found on PATH.
const versionTimeout = 3 * time.Second

// sameOwt reports whether the owt at p is this one: the same file, or
// one whose --version says this owt's version. theirs is what it said
// ("did not say" when it failed), for the message when it is not.
func (w *Worktrees) sameOwt(p string) (same bool, theirs string) {
	if w.Self == "" {
		return true, "" // nothing to compare with
	}
	a, errA := os.Stat(p)
	b, errB := os.Stat(w.Self)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return true, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := proc.Command(ctx, p, "--version")
	cmd.Stdout = &out
	if err := proc.Run(ctx, cmd); err != nil {
		return false, "its --version failed: " + untrusted.ShortLine(err.Error(), 80)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	v := strings.TrimSpace(strings.TrimPrefix(line, "owt version "))
	if v == buildinfo.String() {
		return true, ""
	}
	if v == "" {
		return false, "its --version said nothing"
	}
	return false, untrusted.ShortLine(v, 80)
}

// splitPath is the entries of a PATH value: the absolute ones, and the
// others ("" for an empty entry, which a shell reads as the current
// folder), each once.
func splitPath(path string) (abs, rel []string) {
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(path) {
		if seen[d] {
			continue
		}
		seen[d] = true
		if filepath.IsAbs(d) {
			abs = append(abs, d)
		} else {
			rel = append(rel, d)
		}
	}
	return abs, rel
}

// notOnPathFix says how to put this owt (self) on the PATH new tmux panes
// get: when this shell's PATH already has its folder only tmux's lacks
// it (tmux keeps the PATH it started with); otherwise the folder goes
// into the shell's profile. (A link into ~/.local/bin is no fix when owt
// is there already.)
func notOnPathFix(self, restart string) string {
	dir := filepath.Dir(self)
	if self != "owt" && slices.Contains(filepath.SplitList(os.Getenv("PATH")), dir) {
		return fmt.Sprintf("your shell's PATH has %s but tmux's does not (tmux keeps the PATH it started with): %s", dir, strings.TrimPrefix(restart, "then "))
	}
	return fmt.Sprintf("add %s to PATH in your shell's profile (export PATH=\"%s:$PATH\"); %s", dir, dir, restart)
}
