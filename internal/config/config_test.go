package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	setuppaths "github.com/owt-tmux/owt/internal/setup"
)

var setupCleanRel = setuppaths.CleanRel

func setup(t *testing.T, user, repo string) string {
	t.Helper()
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	xdg.Reload() // the XDG directories are read once, at start
	if user != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(cfgHome, "owt"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(cfgHome, "owt", "config.toml"), []byte(user), 0o644))
	}
	root := t.TempDir()
	if repo != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, RepoFile), []byte(repo), 0o644))
	}
	return root
}

func TestDefaultsWithoutFiles(t *testing.T) {
	root := setup(t, "", "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Defaults(), cfg)
	require.Equal(t, 5*time.Second, cfg.Status.StillAfter.Duration)
}

func TestLayersMergeRepoOverUserOverDefaults(t *testing.T) {
	root := setup(t,
		"[agent]\ntool = \"codex\"\nauto_approve = true\n[worktree]\ncopy = [\".env\"]\n[tools.claude]\ncommand = [\"claude-beta\"]\nplan = [\"--plan\"]\n",
		"[agent]\ntool = \"gemini\"\n[tools.claude]\nready = \"^x\"\n[status]\nstill_after = \"9s\"\n")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, "gemini", cfg.Agent.Tool, "repo wins")
	require.True(t, cfg.Agent.AutoApprove, "user value kept where repo is silent")
	require.Equal(t, []string{".env"}, cfg.Worktree.Copy)
	require.Equal(t, "../{repo}.worktrees/{name}", cfg.Worktree.Dir, "default kept")
	require.Equal(t, 9*time.Second, cfg.Status.StillAfter.Duration)
	claude := cfg.Tools["claude"]
	require.Equal(t, []string{"claude-beta"}, claude.Command, "tool fields merge across layers")
	require.Equal(t, []string{"--plan"}, claude.Plan)
	require.Equal(t, "^x", claude.Ready)
}

func TestUnknownAndMistypedKeysNameFileAndKey(t *testing.T) {
	root := setup(t, "[agent]\nauto_approve = \"yes\"\n", "[agnet]\ntool = \"x\"\n[worktree]\ncopyy = []\n")
	_, err := Load(root)
	var ps Problems
	require.True(t, errors.As(err, &ps), "%v", err)
	msg := err.Error()
	require.Contains(t, msg, filepath.Join(root, RepoFile))
	require.Contains(t, msg, "agnet")
	require.Contains(t, msg, "worktree.copyy")
	require.Contains(t, msg, "config.toml")
	require.Contains(t, msg, "auto_approve")
}

func TestValidation(t *testing.T) {
	root := setup(t, "", "[worktree]\ndir = \"/tmp/fixed\"\n[tools.x]\nprompt = \"maybe\"\n[status]\nstill_after = \"soon\"\n")
	_, err := Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), "still_after")
	root = setup(t, "", "[worktree]\ndir = \"/tmp/fixed\"\n[tools.x]\nprompt = \"maybe\"\n")
	_, err = Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), "worktree.dir")
	require.Contains(t, err.Error(), "tools.x.prompt")
}

func TestEncodeRoundTrips(t *testing.T) {
	out, err := Encode(Defaults())
	require.NoError(t, err)
	require.True(t, strings.Contains(out, "still_after = \"5s\""), out)
	// The user's file may hold every key ([log] only there).
	root := setup(t, out, "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Defaults(), cfg)
}

// [log] is the user's: one owt.log serves every repository. A value owt
// does not know is an error like any other, and so is [log] in a
// repository's .owt.toml.
func TestLogFormatIsStrictAndTheUsers(t *testing.T) {
	root := setup(t, "[log]\nformat = \"json\"\n", "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, "json", cfg.Log.Format)
	require.Equal(t, "text", Defaults().Log.Format)

	root = setup(t, "[log]\nformat = \"yaml\"\n", "")
	_, err = Load(root)
	require.ErrorContains(t, err, `log.format: "yaml" is not one of text, json`)
	require.ErrorContains(t, err, "config.toml")

	root = setup(t, "[log]\nformat = \"json\"\nlevel = 1\n", "")
	_, err = Load(root)
	require.ErrorContains(t, err, "log.level: unknown key")

	root = setup(t, "", "[log]\nformat = \"json\"\n")
	cfg, err = Load(root)
	require.ErrorContains(t, err, filepath.Join(root, RepoFile)+": log: owt.log is shared by every repository")
	require.Equal(t, "text", cfg.Log.Format, "the repository's value is not taken")
}

func TestEveryProblemOfAFileIsReported(t *testing.T) {
	root := setup(t, "", "[worktree]\nport_base = \"x\"\nbogus = 1\n[tools.x]\nprompt = 3\nzz = 1\n[status]\nstill_after = \"soon\"\n")
	_, err := Load(root)
	var ps Problems
	require.True(t, errors.As(err, &ps), "%v", err)
	file := filepath.Join(root, RepoFile)
	require.Equal(t, Problems{
		{File: file + ":2", Key: "worktree.port_base", Msg: "must be an integer, not a string"},
		{File: file, Key: "worktree.bogus", Msg: "unknown key"},
		{File: file + ":5", Key: "tools.x.prompt", Msg: "must be a string, not an integer"},
		{File: file, Key: "tools.x.zz", Msg: "unknown key"},
		{File: file + ":8", Key: "status.still_after", Msg: `not a duration (like "5s"): "soon"`},
	}, ps)
}

func TestSendTimeoutIsADurationAboveZero(t *testing.T) {
	root := setup(t, "", "[agent]\nsend_timeout = \"5s\"\n")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, cfg.Agent.SendTimeout.Duration)
	require.Equal(t, 30*time.Second, Defaults().Agent.SendTimeout.Duration)

	root = setup(t, "", "[agent]\nsend_timeout = \"0s\"\n")
	_, err = Load(root)
	require.ErrorContains(t, err, "agent.send_timeout: must be more than 0")
}

func TestReviewDefaultsAndStrictness(t *testing.T) {
	cfg, err := Load(setup(t, "", "[review]\nenabled = true\ntool = \"codex\"\n"))
	require.NoError(t, err)
	require.Equal(t, Review{Enabled: true, Tool: "codex", Timeout: Duration{5 * time.Minute}}, cfg.Review)

	_, err = Load(setup(t, "", "[review]\ntimeout = \"0s\"\nenabeld = true\n"))
	require.ErrorContains(t, err, "review.timeout: must be more than 0")
	require.ErrorContains(t, err, "review.enabeld")
}

func TestRunOnConflictIsNeedsYouOrResolve(t *testing.T) {
	root := setup(t, "", "[run]\non_conflict = \"resolve\"\n")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, OnConflictResolve, cfg.Run.OnConflict)
	root = setup(t, "", "[run]\non_conflict = \"theirs\"\n")
	_, err = Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), "run.on_conflict")
}

// TestEveryKeyHasADescription fails on a key of the config files without
// words in keyDocs (docs.go), which docs/reference/config.md and owt.1
// would show blank, and on words for a key that is no more.
func TestEveryKeyHasADescription(t *testing.T) {
	missing, stray := Undocumented()
	for _, k := range missing {
		t.Errorf("config key %s has no description: add it to keyDocs in internal/config/docs.go", k)
	}
	for _, k := range stray {
		t.Errorf("keyDocs describes %s, which is no config key: take it out", k)
	}
	if len(Schema()) < 50 {
		t.Errorf("Schema has only %d keys: it no longer walks Config", len(Schema()))
	}
}

// A tool's name is typed on command lines and completed by the shells:
// one with shell syntax or control characters is a config problem, one
// line naming it quoted, not a candidate a TAB would paste raw.
func TestToolNamesAreWordsOfOneLine(t *testing.T) {
	// As written in TOML's quoted keys: \u001b is an escape character.
	for _, name := range []string{"x$(id)", "a b", `x\u001b]0;PWN\u0007`, `a\nb`, "-rf", "x`id`", "x;y"} {
		root := setup(t, "", "[tools.\""+name+"\"]\ncommand = [\"true\"]\n")
		_, err := Load(root)
		var ps Problems
		require.True(t, errors.As(err, &ps), "%q: %v", name, err)
		require.Len(t, ps, 1, "%q: %v", name, err)
		require.Contains(t, ps[0].Error(), "a tool's name is letters, digits")
		require.NotContains(t, ps[0].Error(), "\x1b", "control characters are escaped")
		require.NotContains(t, ps[0].Error(), "\n")
	}
	for _, name := range []string{"claude", "my-tool", "Codex_2", "gpt.5"} {
		root := setup(t, "", "[tools.\""+name+"\"]\ncommand = [\"true\"]\n")
		_, err := Load(root)
		require.NoError(t, err, name)
	}
}

// [worktree] link is checked by owt new's own rule (setup.CleanRel): what
// new refuses, validate refuses, with the same words.
func TestLinkPathsOutsideTheRepositoryAreProblems(t *testing.T) {
	for _, link := range []string{"../../x", "/etc", "a/../../b", "."} {
		root := setup(t, "", "[worktree]\nlink = [\""+link+"\"]\n")
		_, err := Load(root)
		require.Error(t, err, link)
		_, want := setupCleanRel(link)
		require.Contains(t, err.Error(), "worktree.link: "+want.Error())
	}
	root := setup(t, "", "[worktree]\nlink = [\"node_modules\", \"data/cache\"]\n")
	_, err := Load(root)
	require.NoError(t, err)
}
