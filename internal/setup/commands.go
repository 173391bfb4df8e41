package setup

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Commands are a project's own test, lint and dev commands, each a shell
// line an agent is told to run.
type Commands struct {
	Test, Lint, Dev []string
}

// DetectCommands reads the project's commands off the files at the root
// of dir: a Makefile's test/lint/dev targets, package.json's scripts (run
// with the package manager its lockfile names), go.mod, Cargo.toml and
// Python's test setups. Like Detect it never fails: what it cannot read
// it does not name.
func DetectCommands(dir string) Commands {
	var c Commands
	var targets map[string]bool
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} { // GNU make's order: it reads the first there
		if isFile(dir, name) {
			targets = makeTargets(filepath.Join(dir, name))
			break
		}
	}
	for _, t := range []struct {
		name string
		into *[]string
	}{{"test", &c.Test}, {"lint", &c.Lint}, {"dev", &c.Dev}} {
		if targets[t.name] {
			*t.into = append(*t.into, "make "+t.name)
		}
	}
	if s, ok := detectNode(dir); ok {
		pm := s.Argv[0]
		scripts := packageScripts(filepath.Join(dir, "package.json"))
		run := func(script string) string {
			if script == "test" && pm != "bun" { // bun test is bun's own runner, not the script
				return pm + " test"
			}
			if pm == "npm" || pm == "bun" {
				return pm + " run " + script
			}
			return pm + " " + script
		}
		for _, t := range []struct {
			name string
			into *[]string
		}{{"test", &c.Test}, {"lint", &c.Lint}, {"dev", &c.Dev}} {
			if _, ok := scripts[t.name]; ok {
				*t.into = append(*t.into, run(t.name))
			}
		}
	}
	if isFile(dir, "go.mod") {
		c.Test = append(c.Test, "go test ./...")
		c.Lint = append(c.Lint, "go vet ./...")
	}
	if isFile(dir, "Cargo.toml") {
		c.Test = append(c.Test, "cargo test")
		c.Lint = append(c.Lint, "cargo clippy")
	}
	if isPytest(dir) {
		c.Test = append(c.Test, "pytest")
	}
	return c
}

// packageScripts is package.json's "scripts", empty when unreadable.
func packageScripts(file string) map[string]string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nil
	}
	return pkg.Scripts
}

var makeTarget = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:[ \t]+[A-Za-z0-9_.-]+)*)[ \t]*:([^=]|$)`)
})

// makeTargets are the targets a Makefile's rules name at the start of a
// line ("test unit: deps" names two).
func makeTargets(file string) map[string]bool {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if m := makeTarget().FindStringSubmatch(sc.Text()); m != nil {
			for _, t := range strings.Fields(m[1]) {
				out[t] = true
			}
		}
	}
	return out
}

// isPytest says whether dir looks like a Python project tested with
// pytest: its own config file, or a Python project with a tests folder.
func isPytest(dir string) bool {
	if isFile(dir, "pytest.ini") || isFile(dir, "conftest.py") {
		return true
	}
	python := isFile(dir, "pyproject.toml") || isFile(dir, "setup.py") || isFile(dir, "requirements.txt") || isFile(dir, "setup.cfg")
	fi, err := os.Stat(filepath.Join(dir, "tests"))
	return python && err == nil && fi.IsDir()
}
