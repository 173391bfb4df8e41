package hook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

// A Claude hook's session id and transcript path are kept on the record
// in the write the hook makes, even when the status does not change, and
// never count as a status change (nothing is published for them).
func TestAClaudeHookKeepsItsTranscriptPath(t *testing.T) {
	w := worldtest.New(t).Workspace()
	now := time.Now()
	require.NoError(t, w.Store.Update(func(f *state.File) error {
		f.Records["a"] = &state.Record{Name: "a", Status: state.Working, Source: state.FromHook, EventAt: now}
		return nil
	}))
	env := map[string]string{"OWT_NAME": "a", "OWT_REPO": w.Repo.Root}
	call := Call{Kind: "claude", Event: "PreToolUse", Getenv: func(k string) string { return env[k] }, At: now.Add(time.Millisecond),
		Payload: []byte(`{"session_id":"s-1","transcript_path":"/home/u/.claude/projects/-x/s-1.jsonl","hook_event_name":"PreToolUse"}`)}
	require.NoError(t, Handle(w.Tmux, call))
	f, err := w.Store.Load()
	require.NoError(t, err)
	r := f.Records["a"]
	require.Equal(t, "s-1", r.AgentSession)
	require.Equal(t, "/home/u/.claude/projects/-x/s-1.jsonl", r.Transcript)
	require.Equal(t, state.Working, r.Status)

	// A later event without them keeps them (the status stays: no
	// publish is started).
	call.Payload, call.At = []byte(`{"hook_event_name":"PostToolUse"}`), now.Add(2*time.Second)
	call.Event = "PostToolUse"
	require.NoError(t, Handle(w.Tmux, call))
	f, err = w.Store.Load()
	require.NoError(t, err)
	require.Equal(t, "/home/u/.claude/projects/-x/s-1.jsonl", f.Records["a"].Transcript)
}
