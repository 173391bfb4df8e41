package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/lifecycle"
)

// prose is README.md and every page under docs/ a person wrote (not the
// generated references), by path.
func prose(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(p string) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
	}
	add(filepath.Join(root, "README.md"))
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "reference" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			add(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStatedDefaultsAreTheCodes checks what the README and docs/ say a
// default is against the code, wherever they say one: a config line in a
// toml block whose comment says "default" (issue 35: the [notify] on
// default lacked limited), every line of a toml block right after words
// about the defaults, the E2E_PARALLEL of make test (4 in the text,
// 3 in the Makefile), and how old owt list's git figures may be (10 s in
// the README, 3 s in owt list --help).
func TestStatedDefaultsAreTheCodes(t *testing.T) {
	defaults := map[string]string{}
	for _, k := range config.Schema() {
		if !k.Table {
			defaults[k.Name] = k.Default
		}
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^E2E_PARALLEL \?= (\d+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile sets no E2E_PARALLEL ?= N")
	}
	parallel := string(m[1])
	parallelSaid := regexp.MustCompile("E2E_PARALLEL`?[^0-9\n]{0,12}(\\d+)")
	cacheSaid := regexp.MustCompile(`(?s)git figures[^.]{0,160}?at most (\d+) s\b`)
	ttl := strconv.Itoa(int(lifecycle.StatsTTL / time.Second))
	table := regexp.MustCompile(`^\[([a-z_]+)\]`)
	setting := regexp.MustCompile(`^([a-z_]+) = (.*?)\s*#(.*)$`)
	checked := 0
	for path, text := range prose(t) {
		for _, m := range parallelSaid.FindAllStringSubmatch(text, -1) {
			checked++
			if m[1] != parallel {
				t.Errorf("%s says E2E_PARALLEL is %s; the Makefile says %s", path, m[1], parallel)
			}
		}
		for _, m := range cacheSaid.FindAllStringSubmatch(text, -1) {
			checked++
			if m[1] != ttl {
				t.Errorf("%s says owt list's git figures are kept at most %s s; lifecycle.StatsTTL is %s s", path, m[1], ttl)
			}
		}
		inTOML, at, para, lastPara, allDefaults := false, "", "", "", false
		for i, line := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(line, "```toml"):
				// A block right after words about the defaults shows them.
				if para == "" {
					para = lastPara
				}
				inTOML, at, allDefaults = true, "", defaultsWords.MatchString(strings.ToLower(para))
				para, lastPara = "", ""
				continue
			case strings.HasPrefix(line, "```"):
				inTOML = false
				continue
			case !inTOML:
				if strings.TrimSpace(line) == "" {
					if para != "" {
						lastPara = para
					}
					para = ""
				} else {
					para += " " + line
				}
				continue
			}
			if m := table.FindStringSubmatch(line); m != nil {
				at = m[1]
				continue
			}
			m := setting.FindStringSubmatch(line + " #")
			if m == nil || !allDefaults && !saysDefault(m[3]) {
				continue
			}
			want, ok := defaults[at+"."+m[1]]
			if !ok {
				continue
			}
			checked++
			if !sameValue(m[2], want) {
				t.Errorf("%s:%d says the default of %s.%s is %s; the code's is %s (docs/reference/config.md)", path, i+1, at, m[1], m[2], want)
			}
		}
	}
	t.Logf("%d stated defaults checked", checked)
}

// saysDefault is whether a comment says its line is the default ("the
// default: …", "default", "(default)"), not that the key sets one ("the
// default --tool").
func saysDefault(comment string) bool {
	c := strings.ToLower(strings.TrimSpace(comment))
	return strings.HasPrefix(c, "default") || strings.Contains(c, "the default:") || strings.Contains(c, "(default)") ||
		strings.HasPrefix(c, "the default") && !strings.HasPrefix(c, "the default -")
}

// defaultsWords say a toml block after them shows the built-in values
// ("built-in defaults < your config.toml", "the defaults:"), not
// "defaults over the built-in ones".
var defaultsWords = regexp.MustCompile(`built-in defaults|\bthe defaults\b`)

// sameValue is whether two TOML values are the same: spaced alike, and
// "90s" the same duration as "1m30s".
func sameValue(a, b string) bool {
	if normalize(a) == normalize(b) {
		return true
	}
	da, err1 := time.ParseDuration(strings.Trim(a, `"'`))
	db, err2 := time.ParseDuration(strings.Trim(b, `"'`))
	return err1 == nil && err2 == nil && da == db
}

// normalize spaces a TOML value one way: ["a","b"] and [ "a", "b" ] alike.
func normalize(v string) string {
	v = strings.ReplaceAll(v, " ", "")
	return strings.ReplaceAll(v, "'", "\"")
}

// TestPagesTheHelpNamesExist fails on a command whose help points at a
// docs/ page that is not there, or at a section of the README, which
// keeps the first minute only (issue 35: owt mcp's help named "'Agents
// talking to each other' in the README" after it moved to docs/guides).
func TestPagesTheHelpNamesExist(t *testing.T) {
	page := regexp.MustCompile(`docs/[A-Za-z0-9_/.-]+\.md`)
	for _, c := range collect().commands {
		texts := []string{c.Usage}
		for _, f := range c.Flags {
			texts = append(texts, f.Usage)
		}
		for _, s := range texts {
			if strings.Contains(s, "in the README") {
				t.Errorf("owt %s's help points at a section of the README: name the docs/ page", key(c.Path))
			}
			for _, p := range page.FindAllString(s, -1) {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("owt %s's help names %s, which is not there", key(c.Path), p)
				}
			}
		}
	}
}

// TestExitCodesTableIsTheCodes holds the exit-code table of the agents
// guide to cmdutil's codes: each code the guide lists is one of them and
// each of them is listed.
func TestExitCodesTableIsTheCodes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs/guides/agents.md"))
	if err != nil {
		t.Skip("no agents guide:", err)
	}
	rows := regexp.MustCompile(`(?m)^\| (\d) \| `).FindAllStringSubmatch(string(data), -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1])
	}
	want := []string{strconv.Itoa(cmdutil.ExitOK), strconv.Itoa(cmdutil.ExitError), strconv.Itoa(cmdutil.ExitUsage), strconv.Itoa(cmdutil.ExitUnknown)}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("docs/guides/agents.md's exit codes are %v; cmdutil's are %v", got, want)
	}
}
