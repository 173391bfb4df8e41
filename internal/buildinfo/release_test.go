package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// root is the source tree's root: go test runs this in internal/buildinfo
// (not runtime.Caller's path: make test builds with -trimpath).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return dir
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), rel))
	require.NoError(t, err)
	return string(b)
}

// shellVar is the value of a NAME="value" line of a script.
func shellVar(t *testing.T, script, file, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `="([^"]*)"$`).FindStringSubmatch(script)
	require.NotNil(t, m, "%s sets %s", file, name)
	return m[1]
}

// programs are the folders of cmd/: what go install ./cmd/... installs.
func programs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root(t), "cmd"))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root(t), "cmd", e.Name(), "main.go")); err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		GOOS    []string `yaml:"goos"`
		GOARCH  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		Tags    []string `yaml:"tags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		IDs          []string `yaml:"ids"`
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

// The release archives hold every program owt needs, built as make build
// and the tmux plugin build them, named as scripts/install.sh and the
// plugin look for them (issue 34: no release configuration; the plugin
// built with other flags than make build).
func TestReleaseConfigurationBuildsEveryProgramAsMakeDoes(t *testing.T) {
	progs := programs(t)
	require.Contains(t, progs, "owt")

	build := read(t, "scripts/build.sh")
	require.ElementsMatch(t, progs, strings.Fields(shellVar(t, build, "scripts/build.sh", "PROGRAMS")), "scripts/build.sh builds every program of cmd/")
	tags := strings.Fields(shellVar(t, build, "scripts/build.sh", "TAGS"))
	ldflags := shellVar(t, build, "scripts/build.sh", "LDFLAGS")
	require.Contains(t, build, `CGO_ENABLED=0 "$go" build -trimpath $vcs -tags "$TAGS" -ldflags "$ldflags"`)
	require.ElementsMatch(t, progs, strings.Fields(shellVar(t, read(t, "scripts/install.sh"), "scripts/install.sh", "PROGRAMS")), "scripts/install.sh installs every program")
	require.ElementsMatch(t, progs, strings.Fields(shellVar(t, read(t, "scripts/bootstrap.sh"), "scripts/bootstrap.sh", "programs")), "the plugin checks every program")

	// make build, and the plugin's build, are scripts/build.sh.
	mk := read(t, "Makefile")
	require.Regexp(t, `(?m)^build:\n\t\./scripts/build\.sh `, mk)
	require.Regexp(t, `(?m)^install: build\n\t.*\./scripts/install\.sh --from `, mk)
	require.Regexp(t, `(?m)^release-snapshot:\n\t\$\(GORELEASER\) release --snapshot --clean$`, mk)
	require.Contains(t, read(t, "scripts/bootstrap.sh"), `"$plugin_dir/scripts/build.sh" "$tmp" "$go"`)
	require.Contains(t, read(t, ".gitignore"), "dist/")

	var c goreleaserConfig
	dec := yaml.NewDecoder(strings.NewReader(read(t, ".goreleaser.yaml")))
	require.NoError(t, dec.Decode(&c))
	require.Equal(t, 2, c.Version, "GoReleaser v2's configuration")
	require.Equal(t, "owt", c.ProjectName)
	var ids []string
	for _, b := range c.Builds {
		ids = append(ids, b.ID)
		require.Equal(t, "./cmd/"+b.ID, b.Main, b.ID)
		require.Equal(t, b.ID, b.Binary, b.ID)
		require.Equal(t, []string{"CGO_ENABLED=0"}, b.Env, b.ID)
		require.ElementsMatch(t, []string{"linux", "darwin"}, b.GOOS, b.ID)
		require.ElementsMatch(t, []string{"amd64", "arm64"}, b.GOARCH, b.ID)
		require.Equal(t, []string{"-trimpath", "-buildvcs=true"}, b.Flags, b.ID)
		require.Equal(t, tags, b.Tags, b.ID)
		require.Len(t, b.Ldflags, 1, b.ID)
		require.True(t, strings.HasPrefix(b.Ldflags[0], ldflags+" -X "), "%s: %s, then buildinfo's values", b.ID, ldflags)
		const pkg = "-X github.com/owt-tmux/owt/internal/buildinfo."
		for _, v := range []string{pkg + "Commit={{ .FullCommit }}", pkg + "Date={{ .CommitDate }}", pkg + "Modified={{ .IsGitDirty }}",
			"{{- if not .IsSnapshot }} " + pkg + "Version={{ .Tag }}{{ end }}"} {
			require.Contains(t, b.Ldflags[0], v, b.ID)
		}
	}
	require.ElementsMatch(t, progs, ids, "a build for every program of cmd/")
	require.Len(t, c.Archives, 1)
	a := c.Archives[0]
	require.ElementsMatch(t, progs, a.IDs, "the archive holds every program")
	require.Equal(t, []string{"tar.gz"}, a.Formats)
	require.Equal(t, "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}", a.NameTemplate)
	for _, f := range a.Files {
		require.FileExists(t, filepath.Join(root(t), f), "a file the archive holds")
	}
	require.Contains(t, a.Files, "docs/man/owt.1", "the archive carries the man page make docs writes")
	require.Equal(t, "checksums.txt", c.Checksum.NameTemplate)
	require.Equal(t, "sha256", c.Checksum.Algorithm)

	// GoReleaser's own check, where it is installed (CI: make release-check).
	gr := os.Getenv("GORELEASER")
	if gr == "" {
		gr, _ = exec.LookPath("goreleaser")
	}
	if gr == "" {
		t.Log("goreleaser not installed: its own check skipped")
		return
	}
	cmd := exec.Command(gr, "check")
	cmd.Dir = root(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "goreleaser check:\n%s", out)
}

// The Go version building from source needs is the one go.mod names,
// and docs/install.md says it.
func TestInstallDocNamesTheGoVersion(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go ([0-9.]+)$`).FindStringSubmatch(read(t, "go.mod"))
	require.NotNil(t, m)
	doc := read(t, "docs/install.md")
	require.Contains(t, doc, "Go "+m[1])
	require.True(t, slices.ContainsFunc(strings.Split(read(t, "README.md"), "\n"), func(l string) bool {
		return strings.Contains(l, "docs/install.md")
	}), "the README links docs/install.md")
}
