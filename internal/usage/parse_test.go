package usage

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "usage", name))
	require.NoError(t, err)
	return data
}

// lines splits data after each newline, keeping them.
func lines(data []byte) [][]byte {
	out := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	out[len(out)-1] = append(out[len(out)-1], '\n')
	return out
}

func appendTo(t *testing.T, path string, parts ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	for _, p := range parts {
		_, err = f.Write(p)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
}

func day(ts string) string { return dayOf(ts, time.Time{}) }

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestClaudeTranscriptReadsIncrementallyAndCountsEachMessageOnce(t *testing.T) {
	ls := lines(fixture(t, "claude-transcript.jsonl"))
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, ls[:2]...) // the user turn and the first block of msg_01A
	fs := &FileState{Format: FormatClaude}
	res, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.True(t, res.Restarted, "a new file is read from its start")
	require.Equal(t, int64(len(ls[0])+len(ls[1])), fs.Offset)
	require.Equal(t, Tokens{Input: 10, Output: 5, CacheWrite: 2000, CacheRead: 15000}, fs.Days.Models().Sum())

	// The second block of the same message (its output grown), the tool
	// result, and half of the next message's line: the half waits.
	half := ls[4][:len(ls[4])/2]
	appendTo(t, path, ls[2], ls[3], half)
	res, err = fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.False(t, res.Restarted)
	require.Equal(t, int64(len(ls[2])+len(ls[3])), res.Bytes, "only the appended whole lines are read")
	require.Equal(t, Tokens{Input: 10, Output: 250, CacheWrite: 2000, CacheRead: 15000}, fs.Days.Models().Sum(),
		"one message written as two blocks counts once, at its final figures")

	appendTo(t, path, ls[4][len(half):], []byte("{\"type\":\"assistant\",\"message\":{\"usage\": not json\n"), ls[5], ls[6])
	_, err = fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, 1, fs.Skipped, "the corrupt line is skipped")
	info, _ := os.Stat(path)
	require.Equal(t, info.Size(), fs.Offset)
	want := Tokens{Input: 30, Output: 370, CacheWrite: 2500, CacheRead: 32000}
	require.Equal(t, want, fs.Days.Models().Sum(), "the synthetic error message and the summary count nothing")
	require.Equal(t, Tokens{Input: 20, Output: 120, CacheWrite: 500, CacheRead: 17000},
		fs.Days[day("2026-11-28T09:00:00.000Z")]["claude-sonnet-4-5-20250929"])

	// Nothing new: nothing read.
	res, err = fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.Zero(t, res.Bytes)
	require.Equal(t, want, fs.Days.Models().Sum())
}

func TestATruncatedOrReplacedFileIsReadAgainFromItsStart(t *testing.T) {
	ls := lines(fixture(t, "claude-transcript.jsonl"))
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	appendTo(t, path, ls...)
	fs := &FileState{Format: FormatClaude}
	_, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(path, bytes.Join([][]byte{ls[0], ls[4]}, nil), 0o600)) // shorter
	res, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.True(t, res.Restarted)
	require.Equal(t, Tokens{Input: 20, Output: 120, CacheWrite: 500, CacheRead: 17000}, fs.Days.Models().Sum(),
		"the old counts are dropped with the old content")

	// Another file renamed over it, longer than the offset: its inode tells.
	other := filepath.Join(dir, "new.jsonl")
	appendTo(t, other, ls...)
	require.NoError(t, os.Rename(other, path))
	res, err = fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.True(t, res.Restarted)
	require.Equal(t, Tokens{Input: 30, Output: 370, CacheWrite: 2500, CacheRead: 32000}, fs.Days.Models().Sum())
}

func TestReadingStopsAtTheBudgetAndGoesOn(t *testing.T) {
	data := fixture(t, "claude-transcript.jsonl")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, data)
	fs := &FileState{Format: FormatClaude}
	reads := 0
	for {
		res, err := fs.Read(path, 200, now)
		require.NoError(t, err)
		reads++
		require.LessOrEqual(t, res.Bytes, int64(200+1000), "at most one line past the budget")
		if !res.More {
			break
		}
		require.Less(t, reads, 50)
	}
	require.Greater(t, reads, 2)
	require.Equal(t, int64(len(data)), fs.Offset)
	require.Equal(t, Tokens{Input: 30, Output: 370, CacheWrite: 2500, CacheRead: 32000}, fs.Days.Models().Sum())
}

func TestCodexRolloutCountsWhatTheRunningTotalGrewBy(t *testing.T) {
	ls := lines(fixture(t, "codex-rollout.jsonl"))
	path := filepath.Join(t.TempDir(), "rollout-2026-11-27T11-00-00-0199a1b2.jsonl")
	appendTo(t, path, ls[:5]...)
	fs := &FileState{Format: FormatCodex}
	_, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, ByModel{"gpt-5-codex": {Input: 4000, Output: 600, CacheRead: 8000}}, fs.Days.Models(),
		"input without the cached tokens; reasoning is in the output")
	appendTo(t, path, ls[5])
	_, err = fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, ByModel{"gpt-5-codex": {Input: 6000, Output: 1000, CacheRead: 24000}}, fs.Days.Models())
	require.Equal(t, "/work/app", codexCwd(path))
}

func TestGeminiChatCountsAMessageAppendedAgainOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-2026-11-27T12-00-3c2b1a00.jsonl")
	appendTo(t, path, fixture(t, "gemini-chat.jsonl"))
	fs := &FileState{Format: FormatGemini}
	_, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, ByModel{"gemini-2.5-pro": {Input: 5550, Output: 480, CacheRead: 13000}}, fs.Days.Models(),
		"input less cached plus tool-use prompt; thoughts are output")
}

func TestAMissingFileIsNotExist(t *testing.T) {
	fs := &FileState{Format: FormatClaude}
	_, err := fs.Read(filepath.Join(t.TempDir(), "nope.jsonl"), 100, now)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestOnlyARegularFileIsRead(t *testing.T) {
	fs := &FileState{Format: FormatClaude}
	_, err := fs.Read(t.TempDir(), 100, now)
	require.ErrorContains(t, err, "not a regular file")
	res, err := (&FileState{Format: FormatClaude}).Read(os.DevNull, 100, now)
	require.ErrorContains(t, err, "not a regular file", "a hook's /dev/null is no transcript")
	require.Zero(t, res.Bytes)
}

// A line longer than maxLine is passed once, finished or not: its bytes
// all counted (the offset lands right after it), never read again, and
// the usage line after it still counted.
func TestAHugeLineIsPassedOnceFinishedOrNot(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("a", maxLine+100)), 64<<10)
	_, n, err := readLine(r)
	require.ErrorIs(t, err, errLong, "an unfinished huge line is consumed, not waited for")
	require.Equal(t, int64(maxLine+100), n)

	r = bufio.NewReaderSize(strings.NewReader(strings.Repeat("b", maxLine+7)+"\nnext\n"), 64<<10)
	_, n, err = readLine(r)
	require.ErrorIs(t, err, errLong)
	require.Equal(t, int64(maxLine+8), n, "every byte of it, the newline too")
	line, _, err := readLine(r)
	require.NoError(t, err)
	require.Equal(t, "next\n", string(line))
}
