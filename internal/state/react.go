package state

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// PR is a pull request of a worktree's branch, as owt last saw it.
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
	// State is GitHub's: OPEN, CLOSED or MERGED.
	State string `json:"state"`
	Draft bool   `json:"draft,omitempty"`
	// Checks sums up its CI: pass, fail, pending, or none.
	Checks string `json:"checks,omitempty"`
	// Review is GitHub's review decision: APPROVED, CHANGES_REQUESTED,
	// REVIEW_REQUIRED, or empty.
	Review string `json:"review,omitempty"`
	// Head is the commit the PR's head was at when polled.
	Head string `json:"head,omitempty"`
	// Stale says why the fields above may be out of date: the monitor's
	// last poll failed (gh not logged in, …). A poll that answers clears it.
	Stale string `json:"stale,omitempty"`
}

// Reaction is what one reaction source remembers about an agent.
type Reaction struct {
	// Seen is the last input the source judged (a tree, a head and its
	// failing checks, a review id), so it is judged once.
	Seen string `json:"seen,omitempty"`
	// Signature is the last cause acted on; the same cause is sent once.
	Signature string `json:"signature,omitempty"`
	// Attempts counts the messages sent for this reaction; only the cause
	// passing twice in a row sets it back to zero (a message withdrawn
	// untyped, its cause gone, is no attempt).
	Attempts int `json:"attempts"`
	// Passes counts the passing observations in a row since the last
	// failure.
	Passes int `json:"passes,omitempty"`
	// NeedsYou says why the user is needed (attempts used up, a message
	// that could not be delivered); empty when not.
	NeedsYou string `json:"needs_you,omitempty"`
	// Pending is the outbox key of the message sent last, until the
	// outbox settles it.
	Pending string    `json:"pending,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// NeedsUser reports whether any reaction escalated to the user: what the
// status bar counts on every publish, without building NeedsYou's list.
func (r *Record) NeedsUser() bool {
	for _, re := range r.Reactions {
		if re != nil && re.NeedsYou != "" {
			return true
		}
	}
	return false
}

// NeedsYou lists why the record's reactions need the user, by reaction
// name order; empty when none do.
func (r *Record) NeedsYou() []string {
	names := make([]string, 0, len(r.Reactions))
	for n, re := range r.Reactions {
		if re != nil && re.NeedsYou != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + ": " + r.Reactions[n].NeedsYou
	}
	return out
}

// Summary is the PR in a few words: "#12 open, checks fail, changes
// requested", and why that may be out of date when it is.
func (p *PR) Summary() string {
	if p == nil {
		return ""
	}
	s := fmt.Sprintf("#%d %s", p.Number, strings.ToLower(p.State))
	if p.Draft {
		s += " draft"
	}
	if p.Checks != "" && p.Checks != "none" {
		s += ", checks " + p.Checks
	}
	if p.Review != "" {
		s += ", " + strings.ToLower(strings.ReplaceAll(p.Review, "_", " "))
	}
	if p.Stale != "" {
		s += ", stale: " + p.Stale
	}
	return s
}
