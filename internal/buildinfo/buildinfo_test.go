package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func vcs(version, rev, modified, time string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/owt-tmux/owt", Version: version}}
	for k, v := range map[string]string{"vcs.revision": rev, "vcs.modified": modified, "vcs.time": time} {
		if v != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
	}
	return bi
}

// owt --version says the tag a release was built at, with its commit and
// date; any other build says v0.0.0-dev and its commit, never a bare hash
// or "dev" (issue 34's first problem: no tag-derived version).
func TestVersionSaysTheTagOrDevAndTheCommit(t *testing.T) {
	const rev = "fb597b6abcdef0123456789fb597b6abcdef0123"
	const at = "2026-11-29T08:33:56Z"
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		// At a tag, clean: the release.
		{vcs("v0.1.0", rev, "false", at), "v0.1.0 (commit fb597b6abcde, 2026-11-29T08:33:56Z)"},
		{vcs("v0.2.0-rc.1", rev, "false", at), "v0.2.0-rc.1 (commit fb597b6abcde, 2026-11-29T08:33:56Z)"},
		// go install …@v0.1.0: a module download, no git.
		{vcs("v0.1.0", "", "", ""), "v0.1.0"},
		// Between tags: the toolchain's pseudo-version is not a release.
		{vcs("v0.0.0-20261129083356-fb597b6abcde", rev, "false", at), "v0.0.0-dev (commit fb597b6abcde, 2026-11-29T08:33:56Z)"},
		{vcs("v0.1.1-0.20261129083356-fb597b6abcde", rev, "false", at), "v0.0.0-dev (commit fb597b6abcde, 2026-11-29T08:33:56Z)"},
		// At a tag with changes: not that release.
		{vcs("v0.1.0+dirty", rev, "true", at), "v0.0.0-dev (commit fb597b6abcde, modified, 2026-11-29T08:33:56Z)"},
		// A tree without git.
		{vcs("(devel)", "", "", ""), "v0.0.0-dev (commit unknown)"},
		{nil, "v0.0.0-dev (commit unknown)"},
	} {
		require.Equal(t, c.want, From(c.bi).String())
	}
}

// In a linked worktree Go stamps nothing (or another repository's
// commit): scripts/build.sh passes git's answers to the linker instead.
func TestLinkerValuesStandForTheToolchains(t *testing.T) {
	const rev = "fb597b6abcdef0123456789fb597b6abcdef0123"
	none := From(vcs("(devel)", "", "", ""))
	require.Equal(t, "v0.0.0-dev (commit fb597b6abcde, modified, 2026-11-29T08:33:56Z)",
		fromLinker(none, "", rev, "2026-11-29T08:33:56Z", "true").String())
	require.Equal(t, "v0.3.0 (commit fb597b6abcde, 2026-11-29T08:33:56Z)",
		fromLinker(none, "v0.3.0", rev, "2026-11-29T08:33:56Z", "false").String())
	wrong := From(vcs("v0.0.0-20261129083356-0123456789ab", "0123456789ab0123", "true", "2020-01-01T00:00:00Z"))
	require.Equal(t, "v0.0.0-dev (commit fb597b6abcde, 2026-11-29T08:33:56Z)",
		fromLinker(wrong, "", rev, "2026-11-29T08:33:56Z", "false").String(), "the enclosing repository's stamp is not this build's")
	require.Equal(t, "v0.2.0 (commit unknown)"[:6], fromLinker(none, "v0.2.0", "", "", "").Version, "a packager's version")
}

func TestIsDev(t *testing.T) {
	require.True(t, IsDev("dev"), "an owt from before versions were stamped")
	require.True(t, IsDev("v0.0.0-dev (commit fb597b6abcde, 2026-11-29T08:33:56Z)"))
	require.False(t, IsDev("v0.1.0 (commit fb597b6abcde, 2026-11-29T08:33:56Z)"))
}

// This test binary is built from a checkout like any owt: it says
// something honest about itself.
func TestReadThisBuild(t *testing.T) {
	s := String()
	require.NotEmpty(t, s)
	require.Regexp(t, `^v[0-9]+\.[0-9]+\.[0-9]+`, s)
}
