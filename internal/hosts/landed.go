package hosts

import (
	"context"
	"encoding/json"
	"io"
	"math"

	"github.com/owt-tmux/owt/internal/lifecycle"
)

// DeleteLanded deletes the agent called name in the host's clone at
// clone once its branch, fetched home at tip, has landed here. The host's
// owt deletes it only while that loses nothing but those commits (owt
// delete --accept): a commit made there since the fetch, an uncommitted
// file or an edited copy of an ignored file (a .env) keeps the agent, and
// the refusal, in the host owt's words, is the error.
func (h *Host) DeleteLanded(ctx context.Context, clone, name, tip string, stderr io.Writer) error {
	// The commits are here now, however many: the tip says which.
	accept, err := json.Marshal(lifecycle.Loss{Unmerged: math.MaxInt32, Tip: tip})
	if err != nil {
		return err
	}
	return h.Exec(ctx, clone, []string{"delete", "--yes", "--accept", string(accept), "--", name}, io.Discard, stderr)
}
