package state

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/stretchr/testify/require"
)

// The agent's words a record keeps (a failed turn's error, owt done's)
// are written as the plain strings they always were, and omitted when
// empty: a state file reads the same in an older and a newer owt.
func TestAgentWordsInARecordAreWrittenAsPlainStrings(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := Record{Name: "a", TurnError: untrusted.From("rate \x1b[31mlimit"), Done: &DoneSignal{Summary: untrusted.From("did it"), At: at}}
	data, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(data), `"turn_error":"rate \u001b[31mlimit"`)
	require.Contains(t, string(data), `"done":{"summary":"did it","at":"2026-01-02T03:04:05Z"}`, "empty fail and blocked are left out")

	var back Record
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, r, back)

	data, err = json.Marshal(Record{Name: "b"})
	require.NoError(t, err)
	require.NotContains(t, string(data), "turn_error", "no error, no key: as with omitempty")
}
