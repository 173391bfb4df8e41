package setup

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles creates each name (slash-separated) under dir with the given content.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func argvs(steps []Step) [][]string {
	out := make([][]string, 0, len(steps))
	for _, s := range steps {
		out = append(out, s.Argv)
	}
	return out
}

func TestDetect(t *testing.T) {
	const uvPyproject = "[project]\nname = \"x\"\n\n[tool.uv]\ndev-dependencies = []\n"
	const poetryPyproject = "[tool.poetry]\nname = \"x\"\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []Step
	}{
		{"empty dir", nil, nil},
		{"unrelated files", map[string]string{"README.md": "hi", "src/main.py": ""}, nil},

		// Python, by priority.
		{"uv.lock", map[string]string{"uv.lock": "", "pyproject.toml": "[project]\n"},
			[]Step{{"python (uv)", []string{"uv", "sync"}}}},
		{"pyproject [tool.uv]", map[string]string{"pyproject.toml": uvPyproject},
			[]Step{{"python (uv)", []string{"uv", "sync"}}}},
		{"pyproject [tool.uv.sources] sub-table", map[string]string{"pyproject.toml": "[tool.uv.sources]\nfoo = { path = \"x\" }\n"},
			[]Step{{"python (uv)", []string{"uv", "sync"}}}},
		{"uv beats poetry, pipenv and pip", map[string]string{"uv.lock": "", "poetry.lock": "", "Pipfile": "", "requirements.txt": ""},
			[]Step{{"python (uv)", []string{"uv", "sync"}}}},
		{"poetry.lock", map[string]string{"poetry.lock": "", "Pipfile": "", "requirements.txt": ""},
			[]Step{{"python (poetry)", []string{"poetry", "install"}}}},
		{"pyproject [tool.poetry]", map[string]string{"pyproject.toml": poetryPyproject, "requirements.txt": ""},
			[]Step{{"python (poetry)", []string{"poetry", "install"}}}},
		{"Pipfile", map[string]string{"Pipfile": "", "requirements.txt": ""},
			[]Step{{"python (pipenv)", []string{"pipenv", "install"}}}},
		{"Pipfile.lock alone", map[string]string{"Pipfile.lock": "{}"},
			[]Step{{"python (pipenv)", []string{"pipenv", "install"}}}},
		{"requirements.txt", map[string]string{"requirements.txt": "requests\n"},
			[]Step{{"python (pip)", []string{"pip", "install", "-r", "requirements.txt"}}}},
		{"pyproject without uv or poetry", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n# [tool.uv]\n"}, nil},
		{"requirements.txt is a directory", map[string]string{"requirements.txt/base.txt": ""}, nil},

		// Node, by lockfile.
		{"package.json, no lockfile", map[string]string{"package.json": "{}"},
			[]Step{{"node (npm)", []string{"npm", "install"}}}},
		{"package-lock.json", map[string]string{"package.json": "{}", "package-lock.json": "{}"},
			[]Step{{"node (npm)", []string{"npm", "ci"}}}},
		{"yarn.lock", map[string]string{"package.json": "{}", "yarn.lock": "", "package-lock.json": "{}"},
			[]Step{{"node (yarn)", []string{"yarn", "install"}}}},
		{"pnpm-lock.yaml", map[string]string{"package.json": "{}", "pnpm-lock.yaml": "", "yarn.lock": "", "package-lock.json": "{}"},
			[]Step{{"node (pnpm)", []string{"pnpm", "install", "--frozen-lockfile"}}}},
		{"bun.lockb", map[string]string{"package.json": "{}", "bun.lockb": "", "pnpm-lock.yaml": "", "yarn.lock": ""},
			[]Step{{"node (bun)", []string{"bun", "install"}}}},
		{"bun.lock", map[string]string{"package.json": "{}", "bun.lock": "", "package-lock.json": "{}"},
			[]Step{{"node (bun)", []string{"bun", "install"}}}},
		{"lockfile without package.json", map[string]string{"yarn.lock": "", "package-lock.json": "{}"}, nil},
		{"malformed package.json falls back to lockfile", map[string]string{"package.json": "{not json", "pnpm-lock.yaml": ""},
			[]Step{{"node (pnpm)", []string{"pnpm", "install", "--frozen-lockfile"}}}},

		// Rust, Go, PHP.
		{"Cargo.toml", map[string]string{"Cargo.toml": "[package]\n"},
			[]Step{{"rust (cargo)", []string{"cargo", "fetch"}}}},
		{"go.mod", map[string]string{"go.mod": "module x\n"},
			[]Step{{"go", []string{"go", "mod", "download"}}}},
		{"composer.json", map[string]string{"composer.json": "{}"},
			[]Step{{"php (composer)", []string{"composer", "install"}}}},

		// Everything at once comes out in ecosystem order.
		{"all ecosystems in order", map[string]string{
			"composer.json": "{}", "go.mod": "", "Cargo.toml": "", "package.json": "{}",
			"yarn.lock": "", "poetry.lock": "",
		}, []Step{
			{"python (poetry)", []string{"poetry", "install"}},
			{"node (yarn)", []string{"yarn", "install"}},
			{"rust (cargo)", []string{"cargo", "fetch"}},
			{"go", []string{"go", "mod", "download"}},
			{"php (composer)", []string{"composer", "install"}},
		}},

		// Only the root is inspected.
		{"manifests in subdirectories are ignored", map[string]string{
			"apps/web/package.json": "{}", "svc/go.mod": "", "py/requirements.txt": "",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			assert.Equal(t, tt.want, Detect(dir))
		})
	}
}

func TestDetectPackageManagerField(t *testing.T) {
	tests := []struct {
		field string
		locks []string
		want  Step
	}{
		{"pnpm@9.1.0", nil, Step{"node (pnpm)", []string{"pnpm", "install"}}},
		{"pnpm@9.1.0+sha512.abc", []string{"pnpm-lock.yaml"}, Step{"node (pnpm)", []string{"pnpm", "install", "--frozen-lockfile"}}},
		{"yarn@4", []string{"package-lock.json"}, Step{"node (yarn)", []string{"yarn", "install"}}},
		{"bun@1", []string{"yarn.lock"}, Step{"node (bun)", []string{"bun", "install"}}},
		{"npm@10", []string{"pnpm-lock.yaml"}, Step{"node (npm)", []string{"npm", "install"}}},
		{"npm@10", []string{"package-lock.json", "yarn.lock"}, Step{"node (npm)", []string{"npm", "ci"}}},
		// An unknown tool falls back to the lockfiles.
		{"deno@2", []string{"yarn.lock"}, Step{"node (yarn)", []string{"yarn", "install"}}},
		{"", []string{"bun.lockb"}, Step{"node (bun)", []string{"bun", "install"}}},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"package.json": `{"name":"x","packageManager":"` + tt.field + `"}`}
			for _, l := range tt.locks {
				files[l] = ""
			}
			writeFiles(t, dir, files)
			assert.Equal(t, []Step{tt.want}, Detect(dir))
		})
	}
}

func TestDetectMissingDir(t *testing.T) {
	assert.Empty(t, Detect(filepath.Join(t.TempDir(), "nope")))
}

func TestMatchCopy(t *testing.T) {
	untracked := []string{
		".env",
		".envx",
		".env.local",
		"apps/web/.env",
		"apps/web/.env.production",
		".envrc",
		"config/local.json",
		"config/nested/deep.json",
		"other/config/local.json",
		"notes.txt",
		"my.env",
	}
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{".env at any depth, not .envx", []string{".env"}, []string{".env", "apps/web/.env"}},
		{".env.* matches suffixed files", []string{".env.*"}, []string{".env.local", "apps/web/.env.production"}},
		{"defaults", DefaultCopyPatterns, []string{".env", ".env.local", "apps/web/.env", "apps/web/.env.production", ".envrc"}},
		{"path pattern matches the whole path", []string{"config/*.json"}, []string{"config/local.json"}},
		{"leading slash anchors to the root", []string{"/.env"}, []string{".env"}},
		{"no patterns", nil, nil},
		{"one path, many matching patterns, listed once", []string{".env", ".env*", "*"}, untracked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MatchCopy(untracked, tt.patterns)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMatchCopyBadPattern(t *testing.T) {
	for _, p := range []string{"[", "config/[a-", ""} {
		_, err := MatchCopy([]string{".env"}, []string{".env", p})
		require.Error(t, err, "pattern %q", p)
		assert.Contains(t, err.Error(), `"`+p+`"`)
	}
	// Malformed even when nothing is untracked.
	_, err := MatchCopy(nil, []string{"["})
	require.Error(t, err)
}

func TestMatchCopyBadUntracked(t *testing.T) {
	for _, u := range []string{"../.env", "/etc/.env", "a/../../.env", ""} {
		_, err := MatchCopy([]string{u}, []string{".env"})
		assert.Error(t, err, "untracked %q", u)
	}
}

func TestCopyFiles(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		".env":            "SECRET=1\n",
		"apps/web/.env":   "WEB=1\n",
		"bin/run.envrc":   "#!/bin/sh\n",
		"untouched/.env":  "not listed\n",
		"apps/api/.env.x": "API=1\n",
	})
	require.NoError(t, os.Chmod(filepath.Join(src, ".env"), 0o600))
	require.NoError(t, os.Chmod(filepath.Join(src, "bin/run.envrc"), 0o755))

	got, err := CopyFiles(src, dst, []string{".env", "apps/web/.env", "bin/run.envrc", "apps/api/.env.x", "vanished/.env"})
	require.NoError(t, err)
	assert.Equal(t, []string{".env", "apps/web/.env", "bin/run.envrc", "apps/api/.env.x"}, got)

	for name, mode := range map[string]fs.FileMode{".env": 0o600, "bin/run.envrc": 0o755, "apps/web/.env": 0o644} {
		fi, err := os.Lstat(filepath.Join(dst, name))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), name)
		assert.Equal(t, mode, fi.Mode().Perm(), name)
	}
	data, err := os.ReadFile(filepath.Join(dst, "apps/web/.env"))
	require.NoError(t, err)
	assert.Equal(t, "WEB=1\n", string(data))

	fi, err := os.Stat(filepath.Join(dst, "apps/web"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.NoFileExists(t, filepath.Join(dst, "untouched/.env"))
	assert.NoDirExists(t, filepath.Join(dst, "vanished"))
}

func TestCopyFilesRefusesOverwrite(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{".env": "NEW\n", "a/.env.local": "A\n"})
	writeFiles(t, dst, map[string]string{".env": "TRACKED\n"})

	got, err := CopyFiles(src, dst, []string{"a/.env.local", ".env"})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrExist)
	assert.Contains(t, err.Error(), ".env")
	assert.Empty(t, got)

	data, err := os.ReadFile(filepath.Join(dst, ".env"))
	require.NoError(t, err)
	assert.Equal(t, "TRACKED\n", string(data), "existing file must be unchanged")
	// Checked before anything was written: nothing else copied.
	assert.NoDirExists(t, filepath.Join(dst, "a"))
}

func TestCopyFilesRefusesOverwritingSymlink(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{".env": "NEW\n"})
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dst, ".env")))
	_, err := CopyFiles(src, dst, []string{".env"})
	require.ErrorIs(t, err, fs.ErrExist)
	target, err := os.Readlink(filepath.Join(dst, ".env"))
	require.NoError(t, err)
	assert.Equal(t, "nowhere", target)
}

func TestCopyFilesSymlink(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"shared/env": "X=1\n"})
	require.NoError(t, os.Symlink("shared/env", filepath.Join(src, ".env")))
	require.NoError(t, os.Symlink("/does/not/exist", filepath.Join(src, ".env.dangling")))

	got, err := CopyFiles(src, dst, []string{".env", ".env.dangling"})
	require.NoError(t, err)
	assert.Equal(t, []string{".env", ".env.dangling"}, got)

	for name, want := range map[string]string{".env": "shared/env", ".env.dangling": "/does/not/exist"} {
		fi, err := os.Lstat(filepath.Join(dst, name))
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "%s should be a symlink", name)
		target, err := os.Readlink(filepath.Join(dst, name))
		require.NoError(t, err)
		assert.Equal(t, want, target)
	}
}

func TestCopyFilesRejects(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{".env": "A\n", "dir/x": ""})

	for _, rel := range []string{"../.env", "/etc/passwd", "a/../../x", "", "."} {
		_, err := CopyFiles(src, dst, []string{".env", rel})
		assert.Error(t, err, "rel %q", rel)
		assert.NoFileExists(t, filepath.Join(dst, ".env"), "nothing copied for bad rel %q", rel)
	}

	_, err := CopyFiles(src, dst, []string{"dir"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dir")
	assert.NoDirExists(t, filepath.Join(dst, "dir"))
}

func TestCopyFilesDoesNotWriteThroughSymlinkedDir(t *testing.T) {
	src, dst, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"conf/.env": "A\n"})
	// A tracked symlink in the worktree pointing outside it.
	require.NoError(t, os.Symlink(outside, filepath.Join(dst, "conf")))

	_, err := CopyFiles(src, dst, []string{"conf/.env"})
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(outside, ".env"))
}

func TestLinkPaths(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"node_modules/pkg/index.js": "x",
		"data/big.db":               "db",
	})

	linked, skipped, err := LinkPaths(src, dst, []string{"node_modules", "data/big.db", "missing", "also/missing"})
	require.NoError(t, err)
	assert.Equal(t, []string{"node_modules", "data/big.db"}, linked)
	assert.Equal(t, []string{"missing", "also/missing"}, skipped)

	for _, rel := range []string{"node_modules", "data/big.db"} {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "%s should be a symlink", rel)
		target, err := os.Readlink(p)
		require.NoError(t, err)
		assert.True(t, filepath.IsAbs(target), "target %q should be absolute", target)
		assert.Equal(t, filepath.Join(src, filepath.FromSlash(rel)), target)
	}
	// The directory link resolves.
	data, err := os.ReadFile(filepath.Join(dst, "node_modules/pkg/index.js"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	// Parent of a file link is a real directory.
	fi, err := os.Lstat(filepath.Join(dst, "data"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.NoFileExists(t, filepath.Join(dst, "missing"))
}

func TestLinkPathsRelativeSrcRoot(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"main/cache/x": "x"})
	require.NoError(t, os.Mkdir(filepath.Join(base, "wt"), 0o755))
	t.Chdir(base)

	linked, _, err := LinkPaths("main", "wt", []string{"cache"})
	require.NoError(t, err)
	assert.Equal(t, []string{"cache"}, linked)
	target, err := os.Readlink(filepath.Join(base, "wt", "cache"))
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(target), "target %q should be absolute", target)
}

func TestLinkPathsExistingDestination(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a": "src", "node_modules/x": ""})
	writeFiles(t, dst, map[string]string{"node_modules/keep": "mine"})

	linked, _, err := LinkPaths(src, dst, []string{"a", "node_modules"})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrExist)
	assert.Contains(t, err.Error(), "node_modules")
	assert.Empty(t, linked)
	assert.NoFileExists(t, filepath.Join(dst, "a"), "checked before anything was linked")
	data, err := os.ReadFile(filepath.Join(dst, "node_modules/keep"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data))
}

func TestLinkPathsEscaping(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"ok": ""})
	for _, rel := range []string{"../x", "a/../../x", "/abs/path", "..", "", "."} {
		_, _, err := LinkPaths(src, dst, []string{"ok", rel})
		assert.Error(t, err, "rel %q", rel)
		assert.NoFileExists(t, filepath.Join(dst, "ok"), "nothing linked for bad rel %q", rel)
	}
}

func TestAllocatePort(t *testing.T) {
	tests := []struct {
		name  string
		used  []int
		base  int
		block int
		want  int
	}{
		{"empty", nil, 4000, 10, 4000},
		{"first taken", []int{4000}, 4000, 10, 4010},
		{"first gap", []int{4000, 4020, 4030}, 4000, 10, 4010},
		{"unordered with gap", []int{4030, 4000, 4010}, 4000, 10, 4020},
		{"odd port overlaps two blocks", []int{4005}, 4000, 10, 4020},
		{"odd port overlaps the end of one block and the start of the next", []int{4000, 4019}, 4000, 10, 4030},
		{"odd port just below base overlaps first block", []int{3995}, 4000, 10, 4010},
		{"port a full block below base is fine", []int{3990}, 4000, 10, 4000},
		{"unrelated ports ignored", []int{80, 8080, 65535}, 4000, 10, 4000},
		{"duplicates", []int{4000, 4000, 4010}, 4000, 10, 4020},
		{"block of one", []int{5000, 5001}, 5000, 1, 5002},
		{"adjacent block above does not overlap", []int{65526}, 65516, 10, 65516},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AllocatePort(tt.used, tt.base, tt.block)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAllocatePortLastBlock(t *testing.T) {
	// Blocks [65516,65526) and [65526,65536): the second ends exactly at 65535.
	got, err := AllocatePort([]int{65516}, 65516, 10)
	require.NoError(t, err)
	assert.Equal(t, 65526, got)
}

func TestAllocatePortErrors(t *testing.T) {
	// Overflow: the only block that fits is taken.
	_, err := AllocatePort([]int{65526}, 65526, 10)
	require.Error(t, err)
	// Overflow: the block would run past 65535.
	_, err = AllocatePort(nil, 65530, 10)
	require.Error(t, err)
	// Every block taken.
	var used []int
	for p := 60000; p <= 65535; p += 100 {
		used = append(used, p)
	}
	_, err = AllocatePort(used, 60000, 100)
	require.Error(t, err)
	// Bad arguments.
	_, err = AllocatePort(nil, 4000, 0)
	require.Error(t, err)
	_, err = AllocatePort(nil, 0, 10)
	require.Error(t, err)
	_, err = AllocatePort(nil, 70000, 10)
	require.Error(t, err)
}

func TestDetectCommands(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	require.Equal(t, Commands{}, DetectCommands(dir))
	write("go.mod", "module x\n")
	write("Makefile", "VAR := 1\ntest: build\n\tgo test ./...\nlint:\n")
	write("package.json", `{"scripts":{"test":"vitest","dev":"vite"}}`)
	write("pnpm-lock.yaml", "")
	got := DetectCommands(dir)
	require.Equal(t, []string{"make test", "pnpm test", "go test ./..."}, got.Test)
	require.Equal(t, []string{"make lint", "go vet ./..."}, got.Lint)
	require.Equal(t, []string{"pnpm dev"}, got.Dev)
}

// make reads GNUmakefile, makefile or Makefile (the first there), and a
// rule may name several targets.
func TestDetectCommandsInEveryMakefileMakeReads(t *testing.T) {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(".PHONY: test unit lint\ntest unit: deps\n\t./run-tests\nlint dev :\n\ttrue\n"), 0o644))
			got := DetectCommands(dir)
			require.Equal(t, []string{"make test"}, got.Test)
			require.Equal(t, []string{"make lint"}, got.Lint)
			require.Equal(t, []string{"make dev"}, got.Dev)
		})
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "GNUmakefile"), []byte("lint:\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n"), 0o644))
	require.Empty(t, DetectCommands(dir).Test, "make reads GNUmakefile first, and only it")
}
