package notes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNoteBlockIsAddedReplacedAndRemovedKeepingTheRest(t *testing.T) {
	block := func(text string) string {
		return noteBegin + "\n" + noteHeading + "\n\n" + text + "\n" + noteEnd + "\n"
	}
	got, err := withNoteBlock("", "one")
	require.NoError(t, err)
	require.Equal(t, block("one"), got)

	user := "# mine\nkeep me"
	got, err = withNoteBlock(user, "one")
	require.NoError(t, err)
	require.Equal(t, user+"\n\n"+block("one"), got)

	again, err := withNoteBlock(got+"after\n", "two")
	require.NoError(t, err)
	require.Equal(t, user+"\n\n"+block("two")+"after\n", again)

	rest, found := withoutNoteBlock(user + "\n\n" + block("two"))
	require.True(t, found)
	require.Equal(t, user+"\n", rest)
	_, found = withoutNoteBlock(user)
	require.False(t, found)

	_, err = withNoteBlock(noteBegin+"\nno end", "x")
	require.Error(t, err)
}

func TestContextFileNames(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	for content, want := range map[string][]string{
		`{"context": {"fileName": "AGENTS.md"}}`:                       {"AGENTS.md"},
		`{"context": {"fileName": ["GEMINI.md", "sub/X.md", "T.md"]}}`: {"GEMINI.md", "T.md"},
		`{"contextFileName": "OLD.md"}`:                                {"OLD.md"},
		`{"other": 1}`:                                                 nil,
		`not json`:                                                     nil,
	} {
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.Equal(t, want, contextFileNames(p), content)
	}
}
