package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/config"
)

const root = "../.."

// TestPagesAreUpToDate fails when a committed page differs from what the
// generator writes now: a command, flag, config key or tmux option
// changed in the code and make docs was not run.
func TestPagesAreUpToDate(t *testing.T) {
	for path, want := range pages() {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v: run make docs", path, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s differs from what internal/docgen writes (%s): run make docs", path, firstDifference(string(got), want))
		}
	}
}

// firstDifference names the first line where got and want part.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			at := 0 // the first byte where they part, shown with what is around it
			for at < len(g[i]) && at < len(w[i]) && g[i][at] == w[i][at] {
				at++
			}
			from := max(0, at-40)
			return "line " + itoa(i+1) + " has " + quote(g[i][from:]) + ", the code says " + quote(w[i][from:])
		}
	}
	return "the committed page has " + itoa(len(g)) + " lines, the code's " + itoa(len(w))
}

func itoa(n int) string { return strconv.Itoa(n) }

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}

// TestEveryCommandAndFlagHasADescription fails on a command (owt's,
// plumbing and owt memory's included) or a flag with no usage text, which
// its help and the reference would show blank.
func TestEveryCommandAndFlagHasADescription(t *testing.T) {
	s := collect()
	for _, f := range s.global {
		if strings.TrimSpace(f.Usage) == "" {
			t.Errorf("owt's global flag %s has no usage text", flagNames(f))
		}
	}
	for _, c := range s.commands {
		if strings.TrimSpace(c.Usage) == "" {
			t.Errorf("owt %s has no usage text", key(c.Path))
		}
		for _, f := range c.Flags {
			if strings.TrimSpace(f.Usage) == "" {
				t.Errorf("owt %s: flag %s has no usage text", key(c.Path), flagNames(f))
			}
		}
	}
	if len(s.commands) < 60 {
		t.Errorf("only %d commands: the reference no longer walks the command tree", len(s.commands))
	}
	if _, ok := s.byPath()["memory search"]; !ok {
		t.Error("owt memory search is not in the reference: owt-mcp's memory tree is missing")
	}
}

// TestEveryConfigKeyHasADescription is config's own test, here too: a
// blank row in config.md is a drift this package reports.
func TestEveryConfigKeyHasADescription(t *testing.T) {
	missing, stray := config.Undocumented()
	for _, k := range missing {
		t.Errorf("config key %s has no description: add it to internal/config/docs.go", k)
	}
	for _, k := range stray {
		t.Errorf("internal/config/docs.go describes %s, which is no config key", k)
	}
}

// ownOptions are the @owt-* options owt keeps for itself (on agents'
// sessions, runs, the plugin's bookkeeping): nothing a user sets or
// reads, so the reference leaves them out.
var ownOptions = map[string]bool{
	"@owt-bound-keys": true, "@owt-life": true, "@owt-tool": true, "@owt-base": true, "@owt-port": true,
	"@owt-runs": true, "@owt-restore": true, "@owt-spawner": true, "@owt-spawn-depth": true,
	"@owt-worker": true, "@owt-popup-fallback-shown": true, "@owt-died": true,
	"@owt-option": true, // no option: the placeholder of owt.conf's line format in an error
}

// TestEveryTmuxOptionIsInTheReference reads every @owt-* name in owt's
// Go code, the plugin's scripts and owt.conf, and fails on one that is
// neither in the reference (keybindings.Options, Published) nor one of
// owt's own: an option added without words for its user.
func TestEveryTmuxOptionIsInTheReference(t *testing.T) {
	s := collect()
	documented := map[string]bool{}
	for _, o := range append(s.options, s.published...) {
		documented[o.Name] = true
	}
	name := regexp.MustCompile(`@owt-[a-z][a-z-]*[a-z]`)
	found := map[string]string{}
	for _, dir := range []string{"cmd", "internal", "popups", "keybindings", "scripts"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasSuffix(p, "_test.go") || strings.Contains(p, "/e2e/") || strings.Contains(p, "/docgen/") ||
				!(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".conf")) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range name.FindAllString(string(data), -1) {
				found[m] = p
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !documented[n] && !ownOptions[n] {
			t.Errorf("%s (in %s) is not in docs/reference/tmux-options.md: add it to keybindings.Options or Published (keybindings/options.go), or to ownOptions here if users never see it", n, found[n])
		}
	}
	for n := range ownOptions {
		if documented[n] {
			t.Errorf("%s is both documented and one of owt's own", n)
		}
	}
}

// TestManPageFormats runs the man page through groff, when it is
// installed, and fails on any warning.
func TestManPageFormats(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff not installed")
	}
	for i, line := range strings.Split(manPage(collect()), "\n") {
		if strings.Contains(line, `"`) && !strings.HasPrefix(line, `.\"`) && !strings.HasPrefix(line, ".TH ") {
			t.Errorf("owt.1 line %d has a bare double quote, which ends a request's argument: %s", i+1, line)
		}
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(manPage(collect()))
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff on owt.1: %v\n%s", err, out)
	}
}
