package agent

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The resume options, as each tool takes them at its pinned version
// (testdata/realtools): right after the command, the id one argument.
func TestResumeArgvOfEachTool(t *testing.T) {
	ps := map[string]Profile{}
	for _, p := range Builtins() {
		ps[p.Name] = p
	}
	argv, err := ps["claude"].ResumeArgv("5f0c-a1b2", true, false)
	require.NoError(t, err)
	require.Equal(t, []string{"claude", "--resume", "5f0c-a1b2", "--permission-mode", "plan"}, argv)
	argv, err = ps["codex"].ResumeArgv("0199a", false, true)
	require.NoError(t, err)
	require.Equal(t, []string{"codex", "resume", "0199a", "--dangerously-bypass-approvals-and-sandbox"}, argv)
	argv, err = ps["gemini"].ResumeArgv("uuid", false, false)
	require.NoError(t, err)
	require.Equal(t, []string{"gemini", "--resume", "uuid"}, argv)
	argv, err = ps["opencode"].ResumeArgv("ses_1", false, false)
	require.NoError(t, err)
	require.Equal(t, []string{"opencode", "--session", "ses_1"}, argv)

	require.False(t, ps["aider"].CanResume())
	_, err = ps["aider"].ResumeArgv("x", false, false)
	require.Error(t, err)
	for _, bad := range []string{"", "--dangerous", "a b", "a\nb"} {
		_, err = ps["claude"].ResumeArgv(bad, false, false)
		require.Error(t, err, "%q is no session id", bad)
	}
	// Codex's notify goes before the subcommand, as for a fresh start.
	cx := ps["codex"]
	argv, _ = cx.ResumeArgv("0199a", false, false)
	require.Equal(t, []string{"codex", "-c", "notify=[]", "resume", "0199a"}, cx.WithArgs(argv, []string{"-c", "notify=[]"}))
}

// OpenCode 1.18.33's session list (C9 in its bundle): the newest session
// of the worktree, not of a sibling in the same project.
func TestNewestOpenCodeSessionOfTheFolder(t *testing.T) {
	data := []byte(`[
  {"id": "ses_old", "title": "a", "updated": 100, "created": 1, "projectId": "p", "directory": "/w/a"},
  {"id": "ses_new", "title": "a", "updated": 300, "created": 2, "projectId": "p", "directory": "/w/a/"},
  {"id": "ses_sib", "title": "b", "updated": 900, "created": 3, "projectId": "p", "directory": "/w/b"}
]`)
	id, err := newestSessionIn(data, "/w/a", time.Time{})
	require.NoError(t, err)
	require.Equal(t, "ses_new", id)
	id, err = newestSessionIn(nil, "/w/a", time.Time{})
	require.NoError(t, err)
	require.Empty(t, id)
	_, err = newestSessionIn([]byte("not json"), "/w/a", time.Time{})
	require.Error(t, err)
}

// An OpenCode session made before the agent was (an earlier agent's of
// the same folder) is not taken for its own.
func TestNewestSessionInSkipsSessionsOlderThanTheAgent(t *testing.T) {
	since := time.UnixMilli(2_000_000_000_000)
	data := []byte(`[{"id":"old","updated":3000000000000,"created":1000000000000,"directory":"/w/a"},
	{"id":"mine","updated":2500000000000,"created":2000000000001,"directory":"/w/a"}]`)
	id, err := newestSessionIn(data, "/w/a", since)
	require.NoError(t, err)
	require.Equal(t, "mine", id)
}
