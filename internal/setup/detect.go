// Package setup prepares a freshly added worktree before its agent starts:
// it detects the project's toolchains and plans the dependency installs,
// copies untracked files (.env and friends) and links shared paths from the
// main checkout, and hands out per-worktree port blocks.
//
// It works on files and plain data only. It never runs git, tmux or the
// install commands itself: the workspace package lists untracked files with
// git, and shows and runs the Steps in the new tmux session.
package setup

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Step is one command shown and run in the new session before the agent starts.
type Step struct {
	Label string   // e.g. "node (pnpm)"
	Argv  []string // executed directly, never through a shell
}

// Lockfiles are the files, at the worktree's root, that the step writes
// when they are not there (npm install writes package-lock.json, failing
// or not): one the install made is owt's, not the agent's work, while it
// is unchanged. None for a step Detect did not plan.
func (s Step) Lockfiles() []string { return lockfiles[s.Label] }

// Folders are the dependency folders, at the worktree's root, the step
// fills: what is in them is downloaded again from the project's manifest
// and lockfile, so one the install made holds no work (owt uninstall
// removes it with the worktree). None for a step that installs elsewhere
// (pip into the active Python, cargo and go into their caches, pipenv
// into its own folder).
func (s Step) Folders() []string { return folders[s.Label] }

var folders = map[string][]string{
	"node (bun)": {"node_modules"}, "node (pnpm)": {"node_modules"}, "node (yarn)": {"node_modules", ".yarn"},
	"node (npm)": {"node_modules"}, "python (uv)": {".venv"}, "python (poetry)": {".venv"}, "php (composer)": {"vendor"},
}

var lockfiles = map[string][]string{
	"python (uv)": {"uv.lock"}, "python (poetry)": {"poetry.lock"}, "python (pipenv)": {"Pipfile.lock"},
	"node (bun)": {"bun.lock", "bun.lockb"}, "node (pnpm)": {"pnpm-lock.yaml"}, "node (yarn)": {"yarn.lock"},
	"node (npm)": {"package-lock.json"}, "rust (cargo)": {"Cargo.lock"}, "go": {"go.sum"}, "php (composer)": {"composer.lock"},
}

// Detect looks at dir (a fresh worktree) and returns the install steps, in
// order: Python (uv > poetry > pipenv > pip), Node (bun > pnpm > yarn > npm),
// Rust, Go, PHP. At most one step per ecosystem.
//
// Only the root of dir is inspected: a monorepo whose packages live in
// subdirectories without a root manifest gets no step for them. Unreadable
// or malformed manifests are treated as if the hint they would give were
// absent; Detect never fails.
func Detect(dir string) []Step {
	var steps []Step
	if s, ok := detectPython(dir); ok {
		steps = append(steps, s)
	}
	if s, ok := detectNode(dir); ok {
		steps = append(steps, s)
	}
	if isFile(dir, "Cargo.toml") {
		steps = append(steps, Step{Label: "rust (cargo)", Argv: []string{"cargo", "fetch"}})
	}
	if isFile(dir, "go.mod") {
		steps = append(steps, Step{Label: "go", Argv: []string{"go", "mod", "download"}})
	}
	if isFile(dir, "composer.json") {
		steps = append(steps, Step{Label: "php (composer)", Argv: []string{"composer", "install"}})
	}
	return steps
}

func detectPython(dir string) (Step, bool) {
	var uvTable, poetryTable bool
	if isFile(dir, "pyproject.toml") {
		uvTable, poetryTable = pyprojectTools(filepath.Join(dir, "pyproject.toml"))
	}
	switch {
	case isFile(dir, "uv.lock") || uvTable:
		return Step{Label: "python (uv)", Argv: []string{"uv", "sync"}}, true
	case isFile(dir, "poetry.lock") || poetryTable:
		return Step{Label: "python (poetry)", Argv: []string{"poetry", "install"}}, true
	case isFile(dir, "Pipfile") || isFile(dir, "Pipfile.lock"):
		return Step{Label: "python (pipenv)", Argv: []string{"pipenv", "install"}}, true
	case isFile(dir, "requirements.txt"):
		return Step{Label: "python (pip)", Argv: []string{"pip", "install", "-r", "requirements.txt"}}, true
	}
	return Step{}, false
}

// pyprojectTools reports whether pyproject.toml has a [tool.uv] or
// [tool.poetry] table (or a sub-table / array of tables under them). It scans
// table headers line by line rather than parsing TOML: a header is all it
// needs, and a malformed file must not stop detection.
func pyprojectTools(file string) (uv, poetry bool) {
	f, err := os.Open(file)
	if err != nil {
		return false, false
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "[") {
			continue
		}
		name := strings.TrimLeft(line, "[")
		if i := strings.Index(name, "]"); i >= 0 {
			name = name[:i]
		}
		name = strings.ReplaceAll(name, " ", "")
		name = strings.ReplaceAll(name, "\t", "")
		name = strings.ReplaceAll(name, `"`, "")
		if name == "tool.uv" || strings.HasPrefix(name, "tool.uv.") {
			uv = true
		}
		if name == "tool.poetry" || strings.HasPrefix(name, "tool.poetry.") {
			poetry = true
		}
	}
	return uv, poetry
}

func detectNode(dir string) (Step, bool) {
	if !isFile(dir, "package.json") {
		return Step{}, false
	}
	pm := packageManagerField(filepath.Join(dir, "package.json"))
	if pm == "" {
		switch {
		case isFile(dir, "bun.lockb") || isFile(dir, "bun.lock"):
			pm = "bun"
		case isFile(dir, "pnpm-lock.yaml"):
			pm = "pnpm"
		case isFile(dir, "yarn.lock"):
			pm = "yarn"
		default:
			pm = "npm"
		}
	}
	var argv []string
	switch pm {
	case "bun":
		argv = []string{"bun", "install"}
	case "pnpm":
		argv = []string{"pnpm", "install"}
		if isFile(dir, "pnpm-lock.yaml") {
			argv = append(argv, "--frozen-lockfile")
		}
	case "yarn":
		// No frozen flag: yarn 1 spells it --frozen-lockfile, berry
		// --immutable, and the wrong one is an error.
		argv = []string{"yarn", "install"}
	default: // npm
		argv = []string{"npm", "install"}
		if isFile(dir, "package-lock.json") || isFile(dir, "npm-shrinkwrap.json") {
			argv = []string{"npm", "ci"}
		}
	}
	return Step{Label: "node (" + pm + ")", Argv: argv}, true
}

// packageManagerField returns the tool named by package.json's
// "packageManager" field ("pnpm@9.1.0+sha512…" → "pnpm"), or "" when the
// field is absent, unreadable or names a tool owt does not know.
func packageManagerField(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	var pkg struct {
		PackageManager string `json:"packageManager"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimSpace(pkg.PackageManager), "@")
	switch name {
	case "bun", "pnpm", "yarn", "npm":
		return name
	}
	return ""
}

// isFile reports whether dir/name exists and is a regular file (following
// symlinks).
func isFile(dir, name string) bool {
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.Mode().IsRegular()
}
